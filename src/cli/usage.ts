declare const PACKAGE_VERSION: string;

/** Set by the bundler; tests run from source, where it is not defined. */
export const VERSION = typeof PACKAGE_VERSION === 'string' ? PACKAGE_VERSION : 'development';

/** `package-variant update --help`. */
export const UPDATE_USAGE = `Usage:
  package-variant update [PKG][@REF] [--strategy S] [--conflicts error] [--allow-dirty] [--dry-run|--diff]
      Update PKG (default: .) to REF of the git upstream its Kptfile records (default: the recorded
      ref), as kpt pkg update does; subpackages with an upstream of their own follow. Commit local
      changes first.
  package-variant update LOCAL_DIR --origin DIR --upstream DIR [--strategy S] [--conflicts error]
                         [--upstream-ref REF] [--upstream-commit SHA] [--dry-run|--diff]
      The same without git: ORIGIN is the version LOCAL_DIR was fetched from, UPSTREAM the new one.

Options:
  --strategy S        resource-merge (default), fast-forward or force-delete-replace
  --conflicts error   stop, writing nothing, where a local edit would give way to upstream's
                      (default: upstream wins, with a warning naming each lost edit)
  --allow-dirty       update a package with uncommitted changes
  --allow-local-upstreams
                      fetch from a repository on this machine that an upstream version brought in
                      (a subpackage's; refused by default)
  --git-timeout SECONDS
                      the longest any git process may run (default 600;
                      PACKAGE_VARIANT_GIT_TIMEOUT)
  --git-stall-timeout SECONDS
                      the longest a fetch may go without a byte from the repository (default 60;
                      PACKAGE_VARIANT_GIT_STALL_TIMEOUT)
  --dry-run           list the files that would be added, changed and removed; write nothing
  --diff              print the change as a unified diff (git apply --directory=PKG applies it)
  -h, --help          show this help

The package is written all or nothing; an update killed midway is undone by the next one. One
update runs at a time in a package tree. Fetched repositories are cached in $PACKAGE_VARIANT_CACHE_DIR
(default: $XDG_CACHE_HOME/package-variant/repos or ~/.cache/package-variant/repos).

Examples:
  package-variant update my-pkg@v2 --dry-run
  package-variant update my-pkg@v2
  package-variant update my-pkg@v2 --diff > update.patch
  package-variant update my-pkg --origin blueprint-v1/ --upstream blueprint-v2/

Exit codes: 0 updated (or nothing to do); 1 the update failed and nothing was written (the results
say why); 2 wrong command-line usage; 3 updated, but what it printed is incomplete (stdout or stderr
could not be written).
`;

/** `package-variant sync --help`. */
export const SYNC_USAGE = `Usage:
  package-variant sync PATH... [--dry-run|--diff] [--lifecycle draft|proposed|published]
                               [--allow-delete] [--approve-deletions] [--adopt-now] [--status-out FILE]
                               [--shard I/N] [--only REPOSITORY[/PACKAGE]]... [--recheck]
                               [--no-render | --allow-exec --image-pull-policy P]
      Create, upgrade and edit the downstream packages that Porch's PackageVariants and
      PackageVariantSets in PATH (files, or directories of *.yaml, *.yml and *.json) ask for, in
      the git repositories their Repository objects name, writing the branches, tags and commits
      Porch writes. The plan is printed first; each repository is then pushed in one atomic push.

Options:
  --dry-run           print the plan and push nothing
  --diff              print the plan and each new revision as a unified diff against what it
                      derives from (paths relative to the repository); push nothing
  --lifecycle L       what the new revisions become: draft (default, as Porch's controller leaves
                      them), proposed, or published (approved: a merge commit on the Repository's
                      branch and the tag <package>/v<N>)
  --allow-delete      carry out the deletion policy of packages their variants no longer ask for:
                      delete (drafts removed, deletion of published revisions proposed) or orphan
                      (the ownership record dropped); without it the plan only lists them
  --approve-deletions finish proposed deletions: the tags, their deletionProposed branches and, in
                      a commit on the Repository's branch, the package's directory removed
  --adopt-now         record the ownership of a package adopted (adoptionPolicy: adoptExisting) in
                      a revision of its own, even when nothing else changes
  --only R[/P]        only the downstreams in Repository R, or only its package P (repeatable):
                      one repository or downstream acted on without editing the fleet files
  --shard I/N         only the downstream repositories of shard I of N (0 to N-1): N runs, in a
                      Kubernetes Indexed Job or a CI matrix, cover the fleet with no coordinator
  --recheck           plan every repository from its content: without it, a repository whose refs,
                      and whose upstreams' refs, have not moved since a run found every downstream
                      there unchanged, with the same inputs, is taken as settled and not read again
                      (the record is in the state directory, $PACKAGE_VARIANT_STATE_DIR)
  --status-out FILE   write every PackageVariant and PackageVariantSet with the status Porch's
                      controllers would give it (Stalled, Ready, downstreamTargets) to FILE
  --no-render         do not run kpt fn render on the revisions written (the plan says so);
                      a render runs the pipeline's functions as containers: kpt uses docker, or
                      podman with KPT_FN_RUNTIME=podman in the environment
  --allow-exec        let kpt fn render run the pipeline's exec functions
  --image-pull-policy P
                      kpt's image pull policy for the render: Always, IfNotPresent, Never
  --git-timeout SECONDS
                      the longest any git process may run (default 600; PACKAGE_VARIANT_GIT_TIMEOUT)
  --git-stall-timeout SECONDS
                      the longest a fetch or push may go without a byte from the repository
                      (default 60; PACKAGE_VARIANT_GIT_STALL_TIMEOUT)
  -h, --help          show this help

Exit codes: 0 nothing to do; 4 changes made (or planned, with --dry-run or --diff); 5 some
downstream is blocked, in conflict, invalid or not converging (the plan says which; the others
were done); 1 an error (a repository that could not be read or pushed is left as it was); 2 wrong
command-line usage; 3 done, but what it printed is incomplete.

Examples:
  package-variant sync fleet/ --dry-run
  package-variant sync fleet/
  package-variant sync repositories.yaml variants/ --lifecycle published
`;

/** `package-variant rpkg --help`. */
export const RPKG_USAGE = `Usage:
  package-variant rpkg get -f PATH...
  package-variant rpkg propose|approve|reject|propose-delete (NAME... | --all) -f PATH...
                                [--dry-run|--diff]
      porchctl's rpkg commands over the git repositories that the Repository objects in PATH
      (files, or directories of *.yaml, *.yml and *.json) name. NAME is a package revision as
      get lists it (<repository>.<package>.<workspace>).

Commands:
  get                 list every package revision: name, package, workspace, revision, latest,
                      lifecycle, repository and the upstream revision it records
  propose             Draft -> Proposed: the draft branch becomes proposed/<package>/<workspace>
  approve             Proposed -> Published: Porch's approval, a merge commit on the Repository's
                      branch and the tag <package>/v<N>
  reject              Proposed -> Draft; DeletionProposed -> Published (the proposal withdrawn)
  propose-delete      Published -> DeletionProposed: the branch deletionProposed/<package>/v<N>

Options:
  -f, --filename PATH the fleet's files or directories (repeatable)
  --all               every revision the command takes that a variant owns (sync's ownership
                      record); a revision nobody's variant owns is acted on only when named
  --dry-run           print the plan and push nothing
  --diff              with approve: also show what publishing replaces on the branch; push nothing
  --git-timeout SECONDS, --git-stall-timeout SECONDS
                      as for sync
  -h, --help          show this help

Exit codes: 0 nothing to do (get: listed); 4 changes made (or planned); 1 an error (a name that
matches no revision, or a revision in a lifecycle the command does not take: nothing is pushed);
2 wrong command-line usage; 3 done, but what it printed is incomplete.
`;

export const USAGE = `package-variant ${VERSION}: a KRM function that keeps kpt package variants current

Usage:
  package-variant                 Run as a KRM function: a ResourceList on stdin, the result on stdout.
  package-variant update [PKG][@REF] ...
                                  Update a package to a new upstream version, as kpt pkg update does
                                  (package-variant update --help).
  package-variant sync PATH...    Create, upgrade and edit downstream packages in git as Porch's
                                  PackageVariant controllers do (package-variant sync --help).
  package-variant rpkg VERB -f PATH ...
                                  List, propose, approve, reject or propose to delete package
                                  revisions as porchctl rpkg does (package-variant rpkg --help).
  package-variant --help          Show this help (-h).
  package-variant --version       Print the version.

The functionConfig decides what the function does:
  none, or a v1 ConfigMap         options: strategy, conflicts, originDir, upstreamDir
  PackageVariant                  (config.porch.kpt.dev/v1alpha1) specialise the package
  PackageVariantSet               (config.porch.kpt.dev/v1alpha2) fan out PackageVariants
  v1 List                         one PackageVariant or PackageVariantSet plus the objects it uses

Examples:
  kpt fn eval my-pkg --exec package-variant --fn-config variant.yaml
  kpt fn eval my-pkg --image ghcr.io/package-variant/package-variant:v0.1.0 --fn-config variant.yaml
  kpt fn source my-pkg | package-variant > result.yaml
  package-variant update my-pkg@v2

Exit codes: 0 success; 1 the function reported an error (see the results in the output);
2 wrong command-line usage.
`;
