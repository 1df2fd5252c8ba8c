package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	configapi "github.com/nephio-project/porch/api/porchconfig/v1alpha1"
	"github.com/nephio-project/porch/pkg/cache/crcache"
	cachetypes "github.com/nephio-project/porch/pkg/cache/types"
	"github.com/nephio-project/porch/pkg/engine"
	externalrepotypes "github.com/nephio-project/porch/pkg/externalrepo/types"
	"github.com/nephio-project/porch/pkg/repository"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

// porch is Porch's engine as its API server wires it (the repository cache over the git backend, the
// task handler with the builtin function runtime), over the Repository objects of one file instead
// of a cluster.
type porch struct {
	engine       engine.CaDEngine
	repositories []*configapi.Repository
	// The cluster's PackageRev objects: what Porch keeps of a PackageRevision outside git (owners, labels).
	metadata *memoryObjects
}

// identity stands for the user on whose behalf Porch writes: the author of its commits.
type identity struct{ name, email string }

func (i identity) GetUserInfo(context.Context) *repository.UserInfo {
	return &repository.UserInfo{Name: i.name, Email: i.email}
}

// repositoryResolver answers Porch's look-ups of Repository objects by name (an upstreamRef's
// repository, an edit's source) from the file's objects.
type repositoryResolver []*configapi.Repository

func (r repositoryResolver) ResolveReference(_ context.Context, namespace, name string, result repository.Object) error {
	target, ok := result.(*configapi.Repository)
	if !ok {
		return fmt.Errorf("cannot resolve %s/%s into a %T", namespace, name, result)
	}
	for _, repo := range r {
		if repo.Namespace == namespace && repo.Name == name {
			repo.DeepCopyInto(target)
			return nil
		}
	}
	return apierrors.NewNotFound(schema.GroupResource{Group: configapi.GroupVersion.Group, Resource: "repositories"}, name)
}

// zeroOfArgument gives the zero value of f's parameter type: Porch's runner options live in an
// internal package, so their type can be inferred but not named here.
func zeroOfArgument[T, R any](func(T) R) T {
	var zero T
	return zero
}

func openPorch(ctx context.Context, repositoriesFile, cacheDir string, author identity) (*porch, error) {
	repositories, err := readRepositories(repositoriesFile)
	if err != nil {
		return nil, err
	}
	watchers := engine.NewWatcherManager()
	metadata := newMemoryObjects()
	cache, err := (&crcache.CrCacheFactory{}).NewCache(ctx, cachetypes.CacheOptions{
		ExternalRepoOptions:  externalrepotypes.ExternalRepoOptions{LocalDirectory: cacheDir, UserInfoProvider: author},
		RepoSyncFrequency:    time.Hour,
		RepoPRChangeNotifier: watchers,
		CoreClient:           metadata,
		CacheType:            cachetypes.CRCacheType,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot make Porch's repository cache: %w", err)
	}
	runner := zeroOfArgument(engine.WithRunnerOptions)
	runner.InitDefaults("gcr.io/kpt-fn/")
	cad, err := engine.NewCaDEngine(
		engine.WithCache(cache),
		engine.WithBuiltinFunctionRuntime("gcr.io/kpt-fn/"),
		engine.WithRunnerOptions(runner),
		engine.WithReferenceResolver(repositoryResolver(repositories)),
		engine.WithUserInfoProvider(author),
		engine.WithWatcherManager(watchers),
	)
	if err != nil {
		return nil, fmt.Errorf("cannot make Porch's engine: %w", err)
	}
	return &porch{engine: cad, repositories: repositories, metadata: metadata}, nil
}

// readRepositories reads config.porch.kpt.dev Repository objects, with the defaults Porch's
// Repository CRD gives (namespace default, branch main).
func readRepositories(path string) ([]*configapi.Repository, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	decoder := k8syaml.NewYAMLOrJSONDecoder(file, 4096)
	var repositories []*configapi.Repository
	for {
		repo := &configapi.Repository{}
		if err := decoder.Decode(repo); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// A fleet file holds PackageVariants and PackageVariantSets beside its Repositories.
		if repo.Kind != "Repository" {
			continue
		}
		if repo.Spec.Git == nil {
			return nil, fmt.Errorf("%s: Repository %s is not a git Repository", path, repo.Name)
		}
		if strings.HasPrefix(repo.Spec.Git.Repo, "./") || strings.HasPrefix(repo.Spec.Git.Repo, "../") {
			// As sync reads a fleet file: a relative path is from the file's directory.
			absolute, err := filepath.Abs(filepath.Join(filepath.Dir(path), repo.Spec.Git.Repo))
			if err != nil {
				return nil, fmt.Errorf("%s: Repository %s: %w", path, repo.Name, err)
			}
			repo.Spec.Git.Repo = absolute
		}
		if repo.Namespace == "" {
			repo.Namespace = "default"
		}
		if repo.Spec.Git.Branch == "" {
			repo.Spec.Git.Branch = "main"
		}
		repositories = append(repositories, repo)
	}
	return repositories, nil
}

func (p *porch) repository(name string) (*configapi.Repository, error) {
	for _, repo := range p.repositories {
		if repo.Name == name {
			return repo, nil
		}
	}
	return nil, fmt.Errorf("no Repository %s", name)
}

// packageRevision finds a PackageRevision by the name Porch gives it; its Repository is the first
// part of the name.
func (p *porch) packageRevision(ctx context.Context, name string) (*configapi.Repository, repository.PackageRevision, error) {
	repoName, _, _ := strings.Cut(name, ".")
	repo, err := p.repository(repoName)
	if err != nil {
		return nil, nil, fmt.Errorf("PackageRevision %s: %w", name, err)
	}
	revisions, err := p.engine.ListPackageRevisions(ctx, repo, repository.ListPackageRevisionFilter{})
	if err != nil {
		return nil, nil, err
	}
	for _, revision := range revisions {
		if revision.KubeObjectName() == name {
			return repo, revision, nil
		}
	}
	return nil, nil, fmt.Errorf("Porch lists no PackageRevision %s in Repository %s", name, repoName)
}
