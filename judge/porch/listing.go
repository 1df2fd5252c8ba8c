package main

import (
	"context"
	"fmt"
	"slices"
	"sort"

	api "github.com/nephio-project/porch/api/porch/v1alpha1"
	configapi "github.com/nephio-project/porch/api/porchconfig/v1alpha1"
	"github.com/nephio-project/porch/pkg/repository"
)

// listedRevision is what Porch's API shows of one PackageRevision, in the fields the judge compares.
type listedRevision struct {
	Name       string       `json:"name"`
	Repository string       `json:"repository"`
	Package    string       `json:"package"`
	Workspace  string       `json:"workspace"`
	Revision   int          `json:"revision"`
	Lifecycle  string       `json:"lifecycle"`
	Latest     bool         `json:"latest"`
	Commit     string       `json:"commit"`
	Tasks      []api.Task   `json:"tasks"`
	Lock       *api.GitLock `json:"upstreamLock,omitempty"`
	Kptfile    string       `json:"kptfile"`
	// Every file of the package, by its path in the package; only where asked for.
	Resources map[string]string `json:"resources,omitempty"`
}

type listedRepository struct {
	Name             string           `json:"name"`
	PackageRevisions []listedRevision `json:"packageRevisions"`
}

func describe(ctx context.Context, revision repository.PackageRevision, withResources bool) (listedRevision, error) {
	object, err := revision.GetPackageRevision(ctx)
	if err != nil {
		return listedRevision{}, fmt.Errorf("%s: %w", revision.KubeObjectName(), err)
	}
	resources, err := revision.GetResources(ctx)
	if err != nil {
		return listedRevision{}, fmt.Errorf("%s: %w", revision.KubeObjectName(), err)
	}
	listed := listedRevision{
		Name:       object.Name,
		Repository: object.Spec.RepositoryName,
		Package:    object.Spec.PackageName,
		Workspace:  object.Spec.WorkspaceName,
		Revision:   object.Spec.Revision,
		Lifecycle:  string(object.Spec.Lifecycle),
		Latest:     object.Labels[api.LatestPackageRevisionKey] == api.LatestPackageRevisionValue,
		Commit:     object.ResourceVersion,
		Tasks:      object.Spec.Tasks,
		Kptfile:    resources.Spec.Resources["Kptfile"],
	}
	if listed.Tasks == nil {
		listed.Tasks = []api.Task{}
	}
	if lock := object.Status.UpstreamLock; lock != nil && lock.Git != nil {
		listed.Lock = lock.Git
	}
	if withResources {
		listed.Resources = resources.Spec.Resources
	}
	return listed, nil
}

// list gives every PackageRevision Porch lists in each Repository, sorted by name, then lifecycle.
func (p *porch) list(ctx context.Context, only []string, withResources bool) ([]listedRepository, error) {
	var result []listedRepository
	for _, repo := range p.repositories {
		if len(only) > 0 && !slices.Contains(only, repo.Name) {
			continue
		}
		listed, err := p.listRepository(ctx, repo, withResources)
		if err != nil {
			return nil, fmt.Errorf("Repository %s: %w", repo.Name, err)
		}
		result = append(result, listedRepository{Name: repo.Name, PackageRevisions: listed})
	}
	return result, nil
}

func (p *porch) listRepository(ctx context.Context, repo *configapi.Repository, withResources bool) ([]listedRevision, error) {
	revisions, err := p.engine.ListPackageRevisions(ctx, repo, repository.ListPackageRevisionFilter{})
	if err != nil {
		return nil, err
	}
	listed := []listedRevision{}
	for _, revision := range revisions {
		described, err := describe(ctx, revision, withResources)
		if err != nil {
			return nil, err
		}
		listed = append(listed, described)
	}
	sort.SliceStable(listed, func(i, j int) bool {
		if listed[i].Name != listed[j].Name {
			return listed[i].Name < listed[j].Name
		}
		return listed[i].Lifecycle < listed[j].Lifecycle
	})
	return listed, nil
}
