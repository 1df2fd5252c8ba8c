package main

import (
	"context"
	"fmt"
	"strings"

	api "github.com/nephio-project/porch/api/porch/v1alpha1"
	"github.com/nephio-project/porch/pkg/repository"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// create makes a new PackageRevision in a Repository as a PackageRevision create request to Porch's
// API does: a draft whose one task is `task` (clone, edit or upgrade), rendered and pushed.
func (p *porch) create(ctx context.Context, repoName, pkg, workspace string, task api.Task) (repository.PackageRevision, error) {
	repo, err := p.repository(repoName)
	if err != nil {
		return nil, err
	}
	object := &api.PackageRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: repo.Namespace},
		Spec: api.PackageRevisionSpec{
			PackageName:    pkg,
			WorkspaceName:  workspace,
			RepositoryName: repo.Name,
			Lifecycle:      api.PackageRevisionLifecycleDraft,
			Tasks:          []api.Task{task},
		},
	}
	return p.engine.CreatePackageRevision(ctx, repo, object, nil)
}

func cloneTask(upstream string) api.Task {
	return api.Task{Type: api.TaskTypeClone, Clone: &api.PackageCloneTaskSpec{Upstream: api.UpstreamPackage{UpstreamRef: &api.PackageRevisionRef{Name: upstream}}}}
}

func editTask(source string) api.Task {
	return api.Task{Type: api.TaskTypeEdit, Edit: &api.PackageEditTaskSpec{Source: &api.PackageRevisionRef{Name: source}}}
}

func upgradeTask(oldUpstream, newUpstream, local string) api.Task {
	return api.Task{Type: api.TaskTypeUpgrade, Upgrade: &api.PackageUpgradeTaskSpec{
		OldUpstream:             api.PackageRevisionRef{Name: oldUpstream},
		NewUpstream:             api.PackageRevisionRef{Name: newUpstream},
		LocalPackageRevisionRef: api.PackageRevisionRef{Name: local},
		Strategy:                api.ResourceMerge,
	}}
}

// moveTo changes a PackageRevision's lifecycle as an update of its spec.lifecycle (propose, reject)
// or its approval subresource (publish) or a proposal of its deletion does.
func (p *porch) moveTo(ctx context.Context, name string, lifecycle api.PackageRevisionLifecycle) (repository.PackageRevision, error) {
	repo, revision, err := p.packageRevision(ctx, name)
	if err != nil {
		return nil, err
	}
	old, err := revision.GetPackageRevision(ctx)
	if err != nil {
		return nil, err
	}
	updated := old.DeepCopy()
	updated.Spec.Lifecycle = lifecycle
	return p.engine.UpdatePackageRevision(ctx, 0, repo, revision, old, updated, nil)
}

// setResources replaces or adds files of a draft, as `porchctl rpkg push` of an edited package does.
func (p *porch) setResources(ctx context.Context, name string, files map[string]string) (repository.PackageRevision, error) {
	repo, revision, err := p.packageRevision(ctx, name)
	if err != nil {
		return nil, err
	}
	old, err := revision.GetResources(ctx)
	if err != nil {
		return nil, err
	}
	updated := old.DeepCopy()
	for path, text := range files {
		updated.Spec.Resources[path] = text
	}
	written, _, err := p.engine.UpdatePackageResources(ctx, repo, revision, old, updated)
	return written, err
}

func (p *porch) remove(ctx context.Context, name string) error {
	repo, revision, err := p.packageRevision(ctx, name)
	if err != nil {
		return err
	}
	return p.engine.DeletePackageRevision(ctx, repo, revision)
}

// lifecycleNamed reads a lifecycle as Porch's API spells it, case aside.
func lifecycleNamed(text string) (api.PackageRevisionLifecycle, error) {
	for _, known := range []api.PackageRevisionLifecycle{
		api.PackageRevisionLifecycleDraft,
		api.PackageRevisionLifecycleProposed,
		api.PackageRevisionLifecyclePublished,
		api.PackageRevisionLifecycleDeletionProposed,
	} {
		if strings.EqualFold(text, string(known)) {
			return known, nil
		}
	}
	return "", fmt.Errorf("no lifecycle %q: Draft, Proposed, Published or DeletionProposed", text)
}
