package main

import (
	"context"
	"fmt"

	porchapi "github.com/nephio-project/porch/api/porch/v1alpha1"
	configapi "github.com/nephio-project/porch/api/porchconfig/v1alpha1"
	pvapi "github.com/nephio-project/porch/controllers/packagevariants/api/v1alpha1"
	pvsapi "github.com/nephio-project/porch/controllers/packagevariantsets/api/v1alpha2"
	"github.com/nephio-project/porch/pkg/repository"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// cluster stands in for the Kubernetes API that Porch's PackageVariant and PackageVariantSet
// controllers talk to. PackageVariants, PackageVariantSets, Repositories and any other object a set
// selects live in controller-runtime's fake client; PackageRevisions and PackageRevisionResources are
// served by Porch's engine over the git repositories, as Porch's aggregated API server serves them.
type cluster struct {
	porch  *porch
	client client.WithWatch
	// writes counts the calls that changed something: a pass of the controllers that adds none is the last.
	writes int
	// listed answers the controllers' List calls as their informer cache does: listed once, then
	// kept up to date by every PackageRevision written, as the watch events of the writes keep it.
	listed *porchapi.PackageRevisionList
}

func clusterScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, configapi.AddToScheme, porchapi.AddToScheme, pvapi.AddToScheme, pvsapi.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

func newCluster(p *porch, scheme *runtime.Scheme, objects []client.Object) *cluster {
	k := &cluster{porch: p}
	store := fake.NewClientBuilder().
		WithScheme(scheme).
		WithObjects(objects...).
		WithStatusSubresource(&pvapi.PackageVariant{}, &pvsapi.PackageVariantSet{}).
		Build()
	k.client = interceptor.NewClient(store, interceptor.Funcs{Get: k.get, List: k.list, Create: k.create, Update: k.update, Delete: k.delete})
	return k
}

func (k *cluster) changed() {
	k.writes++
}

// written keeps the listing up to date with a PackageRevision created or changed: the object the
// controllers see next.
func (k *cluster) written(ctx context.Context, revision repository.PackageRevision) (*porchapi.PackageRevision, error) {
	k.writes++
	object, err := revision.GetPackageRevision(ctx)
	if err != nil {
		return nil, err
	}
	if k.listed != nil {
		k.forget(object.Name)
		k.listed.Items = append(k.listed.Items, *object.DeepCopy())
	}
	return object, nil
}

func (k *cluster) forget(name string) {
	if k.listed == nil {
		return
	}
	kept := k.listed.Items[:0]
	for _, item := range k.listed.Items {
		if item.Name != name {
			kept = append(kept, item)
		}
	}
	k.listed.Items = kept
}

func (k *cluster) get(ctx context.Context, store client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch target := obj.(type) {
	case *porchapi.PackageRevision:
		_, revision, err := k.porch.packageRevision(ctx, key.Name)
		if err != nil {
			return err
		}
		object, err := revision.GetPackageRevision(ctx)
		if err != nil {
			return err
		}
		object.DeepCopyInto(target)
		return nil
	case *porchapi.PackageRevisionResources:
		_, revision, err := k.porch.packageRevision(ctx, key.Name)
		if err != nil {
			return err
		}
		resources, err := revision.GetResources(ctx)
		if err != nil {
			return err
		}
		resources.DeepCopyInto(target)
		return nil
	}
	return store.Get(ctx, key, obj, opts...)
}

func (k *cluster) list(ctx context.Context, store client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	target, ok := list.(*porchapi.PackageRevisionList)
	if !ok {
		return store.List(ctx, list, opts...)
	}
	if k.listed == nil {
		listed := &porchapi.PackageRevisionList{}
		for _, repo := range k.porch.repositories {
			revisions, err := k.porch.engine.ListPackageRevisions(ctx, repo, repository.ListPackageRevisionFilter{})
			if err != nil {
				return fmt.Errorf("Repository %s: %w", repo.Name, err)
			}
			for _, revision := range revisions {
				object, err := revision.GetPackageRevision(ctx)
				if err != nil {
					return fmt.Errorf("%s: %w", revision.KubeObjectName(), err)
				}
				listed.Items = append(listed.Items, *object)
			}
		}
		k.listed = listed
	}
	k.listed.DeepCopyInto(target)
	return nil
}

func (k *cluster) create(ctx context.Context, store client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	switch target := obj.(type) {
	case *porchapi.PackageRevision:
		repo, err := k.porch.repository(target.Spec.RepositoryName)
		if err != nil {
			return err
		}
		written, err := k.porch.engine.CreatePackageRevision(ctx, repo, target.DeepCopy(), nil)
		if err != nil {
			return err
		}
		object, err := k.written(ctx, written)
		if err != nil {
			return err
		}
		object.DeepCopyInto(target)
		return nil
	case *porchapi.PackageRevisionResources:
		return fmt.Errorf("the judge serves no create of PackageRevisionResources %s", target.Name)
	}
	if obj.GetUID() == "" {
		// The API server gives every object a UID; ownership among Porch's objects is by UID.
		obj.SetUID(uuid.NewUUID())
	}
	if err := store.Create(ctx, obj, opts...); err != nil {
		return err
	}
	k.changed()
	return nil
}

func (k *cluster) update(ctx context.Context, store client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
	switch target := obj.(type) {
	case *porchapi.PackageRevision:
		repo, revision, err := k.porch.packageRevision(ctx, target.Name)
		if err != nil {
			return err
		}
		old, err := revision.GetPackageRevision(ctx)
		if err != nil {
			return err
		}
		written, err := k.porch.engine.UpdatePackageRevision(ctx, 0, repo, revision, old, target.DeepCopy(), nil)
		if err != nil {
			return err
		}
		object, err := k.written(ctx, written)
		if err != nil {
			return err
		}
		object.DeepCopyInto(target)
		return nil
	case *porchapi.PackageRevisionResources:
		repo, revision, err := k.porch.packageRevision(ctx, target.Name)
		if err != nil {
			return err
		}
		old, err := revision.GetResources(ctx)
		if err != nil {
			return err
		}
		written, renderStatus, err := k.porch.engine.UpdatePackageResources(ctx, repo, revision, old, target.DeepCopy())
		if err != nil {
			return err
		}
		if _, err := k.written(ctx, written); err != nil {
			return err
		}
		resources, err := written.GetResources(ctx)
		if err != nil {
			return err
		}
		if renderStatus != nil {
			resources.Status.RenderStatus = *renderStatus
		}
		resources.DeepCopyInto(target)
		return nil
	}
	same, err := unchanged(ctx, store, obj)
	if err != nil {
		return err
	}
	if err := store.Update(ctx, obj, opts...); err != nil {
		return err
	}
	if !same {
		k.changed()
	}
	return nil
}

// unchanged tells whether an update leaves an object's spec, labels and finalizers as they are: a
// set's controller updates every PackageVariant of the set on every pass, most to what they were.
func unchanged(ctx context.Context, store client.WithWatch, obj client.Object) (bool, error) {
	stored, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return false, nil
	}
	if err := store.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
		return false, err
	}
	if !equality.Semantic.DeepEqual(stored.GetLabels(), obj.GetLabels()) || !equality.Semantic.DeepEqual(stored.GetFinalizers(), obj.GetFinalizers()) {
		return false, nil
	}
	switch before := stored.(type) {
	case *pvapi.PackageVariant:
		return equality.Semantic.DeepEqual(before.Spec, obj.(*pvapi.PackageVariant).Spec), nil
	case *pvsapi.PackageVariantSet:
		return equality.Semantic.DeepEqual(before.Spec, obj.(*pvsapi.PackageVariantSet).Spec), nil
	}
	return false, nil
}

func (k *cluster) delete(ctx context.Context, store client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
	switch target := obj.(type) {
	case *porchapi.PackageRevision:
		if err := k.porch.remove(ctx, target.Name); err != nil {
			return err
		}
		k.changed()
		k.forget(target.Name)
		return nil
	case *porchapi.PackageRevisionResources:
		return fmt.Errorf("the judge serves no delete of PackageRevisionResources %s", target.Name)
	}
	if err := store.Delete(ctx, obj, opts...); err != nil {
		return err
	}
	k.changed()
	return nil
}
