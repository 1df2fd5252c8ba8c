// Command porch-judge runs Porch's own repository code (its engine, repository cache and git
// backend, from the Porch module as published) over git repositories on this machine: it lists
// every PackageRevision Porch sees, as JSON, and it writes PackageRevisions as Porch's API server
// would, so that package-variant sync can be checked against what Porch reads and writes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/mail"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/nephio-project/porch/pkg/repository"
	"k8s.io/klog/v2"
)

const usage = `usage: porch-judge -repositories FILE [-cache DIR] [-author "Name <email>"] [-cpuprofile FILE] COMMAND ARGS

FILE holds config.porch.kpt.dev/v1alpha1 Repository objects (YAML or JSON; other kinds are passed
over), spec.git.repo a path (from the file's directory where it starts with ./ or ../) or
a URL go-git reads. Commands (a PackageRevision is named as Porch names it, repository.package.workspace):

  list [-resources] [REPOSITORY...]         every PackageRevision of each Repository, as JSON
  clone REPOSITORY PACKAGE WORKSPACE UPSTREAM   a draft cloned from the PackageRevision UPSTREAM
  copy REPOSITORY PACKAGE WORKSPACE SOURCE      a draft copied from SOURCE (the edit task)
  upgrade REPOSITORY PACKAGE WORKSPACE OLD NEW LOCAL   a draft upgrading LOCAL from OLD to NEW
  lifecycle NAME LIFECYCLE                  Proposed, Published (approve), DeletionProposed, Draft
  push NAME PATH=FILE...                    replace or add files of a draft
  delete NAME                               delete a PackageRevision
  controllers [-state FILE] [-passes N] FLEET...   Porch's PackageVariantSet and PackageVariant
                                            controllers over the fleet files' objects, until a pass
                                            writes nothing; -state keeps the cluster between runs

A command that writes prints the PackageRevision it leaves, as JSON.
`

// errUsage marks a wrong command line: exit 2.
var errUsage = errors.New("wrong usage")

func main() {
	if os.Getenv("PORCH_JUDGE_LOG") == "" {
		// Porch logs every step to stderr through klog; the judge's own messages are what a reader needs.
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
	}
	err := run(context.Background(), os.Args[1:], os.Stdout)
	switch {
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "porch-judge: %v\n%s", err, usage)
		os.Exit(2)
	case err != nil:
		fmt.Fprintf(os.Stderr, "porch-judge: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("porch-judge", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	repositories := flags.String("repositories", "", "")
	cacheDir := flags.String("cache", "", "")
	author := flags.String("author", "porch-judge <porch-judge@example.invalid>", "")
	cpuProfile := flags.String("cpuprofile", "", "")
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	rest := flags.Args()
	if *repositories == "" || len(rest) == 0 {
		return fmt.Errorf("%w: -repositories and a command are needed", errUsage)
	}
	who, err := mail.ParseAddress(*author)
	if err != nil {
		return fmt.Errorf("%w: -author %q: %v", errUsage, *author, err)
	}
	if *cacheDir == "" {
		dir, err := os.MkdirTemp("", "porch-judge-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*cacheDir = dir
	}
	if *cpuProfile != "" {
		// Where Porch's time goes: `go tool pprof -top bin/porch-judge FILE`.
		profile, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer profile.Close()
		if err := pprof.StartCPUProfile(profile); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	p, err := openPorch(ctx, *repositories, *cacheDir, identity{name: who.Name, email: who.Address})
	if err != nil {
		return err
	}
	return command(ctx, p, rest[0], rest[1:], out)
}

func command(ctx context.Context, p *porch, name string, args []string, out io.Writer) error {
	wants := func(count int) error {
		if len(args) != count {
			return fmt.Errorf("%w: %s takes %d arguments, not %d", errUsage, name, count, len(args))
		}
		return nil
	}
	var written repository.PackageRevision
	var err error
	switch name {
	case "list":
		flags := flag.NewFlagSet("list", flag.ContinueOnError)
		flags.SetOutput(io.Discard)
		withResources := flags.Bool("resources", false, "")
		if err := flags.Parse(args); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		listed, err := p.list(ctx, flags.Args(), *withResources)
		if err != nil {
			return err
		}
		return printJSON(out, map[string]any{"repositories": listed})
	case "clone":
		if err := wants(4); err != nil {
			return err
		}
		written, err = p.create(ctx, args[0], args[1], args[2], cloneTask(args[3]))
	case "copy":
		if err := wants(4); err != nil {
			return err
		}
		written, err = p.create(ctx, args[0], args[1], args[2], editTask(args[3]))
	case "upgrade":
		if err := wants(6); err != nil {
			return err
		}
		written, err = p.create(ctx, args[0], args[1], args[2], upgradeTask(args[3], args[4], args[5]))
	case "lifecycle":
		if err := wants(2); err != nil {
			return err
		}
		lifecycle, err := lifecycleNamed(args[1])
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		written, err = p.moveTo(ctx, args[0], lifecycle)
		if err != nil {
			return err
		}
	case "push":
		if len(args) < 2 {
			return fmt.Errorf("%w: push takes a PackageRevision and PATH=FILE pairs", errUsage)
		}
		files, err := readFiles(args[1:])
		if err != nil {
			return err
		}
		written, err = p.setResources(ctx, args[0], files)
		if err != nil {
			return err
		}
	case "controllers":
		return p.controllers(ctx, args, out)
	case "delete":
		if err := wants(1); err != nil {
			return err
		}
		return p.remove(ctx, args[0])
	default:
		return fmt.Errorf("%w: no command %q", errUsage, name)
	}
	if err != nil {
		return err
	}
	described, err := describe(ctx, written, false)
	if err != nil {
		return err
	}
	return printJSON(out, described)
}

// readFiles reads PATH=FILE pairs: the package's file PATH gets FILE's text.
func readFiles(pairs []string) (map[string]string, error) {
	files := map[string]string{}
	for _, pair := range pairs {
		path, file, found := strings.Cut(pair, "=")
		if !found || path == "" {
			return nil, fmt.Errorf("%w: %q is not PATH=FILE", errUsage, pair)
		}
		text, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		files[path] = string(text)
	}
	return files, nil
}

func printJSON(out io.Writer, value any) error {
	encoder := json.NewEncoder(out)
	encoder.SetIndent("", "  ")
	return encoder.Encode(value)
}
