package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	configapi "github.com/nephio-project/porch/api/porchconfig/v1alpha1"
	pvapi "github.com/nephio-project/porch/controllers/packagevariants/api/v1alpha1"
	"github.com/nephio-project/porch/controllers/packagevariants/pkg/controllers/packagevariant"
	pvsapi "github.com/nephio-project/porch/controllers/packagevariantsets/api/v1alpha2"
	"github.com/nephio-project/porch/controllers/packagevariantsets/pkg/controllers/packagevariantset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// clusterState is what a run of the controllers leaves for the next, as a cluster keeps it between
// two changes of its objects: the PackageVariants and PackageVariantSets (their UIDs, finalizers, the
// variants a set made) and Porch's PackageRev objects (which PackageRevision a variant owns).
type clusterState struct {
	PackageRevs map[string]json.RawMessage `json:"packageRevs"`
	Objects     []json.RawMessage          `json:"objects"`
}

// controllersReport is what a run of the controllers prints.
type controllersReport struct {
	Passes    int  `json:"passes"`
	Converged bool `json:"converged"`
	Writes    int  `json:"writes"`
	// The errors the controllers returned in the last pass, by object: a controller would retry them.
	Errors          map[string]string `json:"errors"`
	PackageVariants []variantReport   `json:"packageVariants"`
}

type variantReport struct {
	Name        string                   `json:"name"`
	Downstreams []pvapi.DownstreamTarget `json:"downstreamTargets"`
	Conditions  []metav1.Condition       `json:"conditions"`
}

// controllers runs Porch's PackageVariantSet and PackageVariant reconcilers over the objects of the
// fleet files, as their controller manager would after the objects were applied, until a pass of
// both over every object writes nothing (at most -passes passes). -state keeps the cluster between
// runs: a run applies the fleet files over what the last one left, deleting the variants and sets
// the files no longer hold, as `kubectl apply --prune` of the files would.
func (p *porch) controllers(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("controllers", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	stateFile := flags.String("state", "", "")
	passes := flags.Int("passes", 20, "")
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if flags.NArg() == 0 || *passes < 1 {
		return fmt.Errorf("%w: controllers takes fleet files and at least one pass", errUsage)
	}
	scheme, err := clusterScheme()
	if err != nil {
		return err
	}
	state, err := readState(*stateFile)
	if err != nil {
		return err
	}
	p.metadata.restore(state.PackageRevs)
	fleet, err := readFleet(scheme, flags.Args())
	if err != nil {
		return err
	}
	kept, err := decodeObjects(scheme, state.Objects)
	if err != nil {
		return fmt.Errorf("%s: %w", *stateFile, err)
	}
	objects, gone := apply(fleet, kept)
	for _, repo := range p.repositories {
		if !holds(objects, repo) {
			objects = append(objects, repo.DeepCopy())
		}
	}
	k := newCluster(p, scheme, objects)
	for _, object := range gone {
		if err := k.client.Delete(ctx, object); err != nil {
			return fmt.Errorf("cannot delete %s: %w", object.GetName(), err)
		}
	}
	report, err := k.reconcile(ctx, *passes)
	if err != nil {
		return err
	}
	if err := k.save(ctx, *stateFile); err != nil {
		return err
	}
	return printJSON(out, report)
}

func readState(path string) (clusterState, error) {
	var state clusterState
	if path == "" {
		return state, nil
	}
	text, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return state, nil
	}
	if err != nil {
		return state, err
	}
	if err := json.Unmarshal(text, &state); err != nil {
		return state, fmt.Errorf("%s: %w", path, err)
	}
	return state, nil
}

// readFleet reads every object of the files, typed where the scheme knows its kind, in namespace
// default where it names none.
func readFleet(scheme *runtime.Scheme, paths []string) ([]client.Object, error) {
	var objects []client.Object
	for _, path := range paths {
		file, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		decoder := k8syaml.NewYAMLOrJSONDecoder(file, 4096)
		for {
			var fields map[string]any
			if err := decoder.Decode(&fields); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				file.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if len(fields) == 0 {
				continue
			}
			object, err := typed(scheme, &unstructured.Unstructured{Object: fields})
			if err != nil {
				file.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if object.GetNamespace() == "" {
				object.SetNamespace("default")
			}
			objects = append(objects, object)
		}
		file.Close()
	}
	return objects, nil
}

func decodeObjects(scheme *runtime.Scheme, raws []json.RawMessage) ([]client.Object, error) {
	var objects []client.Object
	for _, raw := range raws {
		fields := map[string]any{}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, err
		}
		object, err := typed(scheme, &unstructured.Unstructured{Object: fields})
		if err != nil {
			return nil, err
		}
		objects = append(objects, object)
	}
	return objects, nil
}

func typed(scheme *runtime.Scheme, u *unstructured.Unstructured) (client.Object, error) {
	gvk := u.GroupVersionKind()
	if !scheme.Recognizes(gvk) {
		return u, nil
	}
	made, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, made); err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
	}
	object, ok := made.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s %s is not an object", gvk.Kind, u.GetName())
	}
	object.GetObjectKind().SetGroupVersionKind(gvk)
	return object, nil
}

func holds(objects []client.Object, repo *configapi.Repository) bool {
	for _, object := range objects {
		if _, ok := object.(*configapi.Repository); ok && object.GetName() == repo.Name && object.GetNamespace() == repo.Namespace {
			return true
		}
	}
	return false
}

// apply lays the fleet's objects over the kept ones: a variant or set the fleet holds keeps the UID,
// finalizers and status it had, with the fleet's spec; a variant a set made stays while its set does.
// It gives the objects to start from and the kept variants to delete (their finalizer runs first).
func apply(fleet, kept []client.Object) ([]client.Object, []client.Object) {
	keptByName := map[string]client.Object{}
	for _, object := range kept {
		keptByName[fmt.Sprintf("%T/%s/%s", object, object.GetNamespace(), object.GetName())] = object
	}
	setUIDs := map[types.UID]bool{}
	fleetNames := map[string]bool{}
	for _, object := range fleet {
		key := fmt.Sprintf("%T/%s/%s", object, object.GetNamespace(), object.GetName())
		fleetNames[key] = true
		if before, found := keptByName[key]; found {
			object.SetUID(before.GetUID())
			object.SetFinalizers(before.GetFinalizers())
			keepStatus(before, object)
		}
		if _, isVariant := object.(*pvapi.PackageVariant); isVariant || isSet(object) {
			if object.GetUID() == "" {
				object.SetUID(uuid.NewUUID())
			}
		}
		if isSet(object) {
			setUIDs[object.GetUID()] = true
		}
	}
	objects := append([]client.Object{}, fleet...)
	var gone []client.Object
	for _, object := range kept {
		variant, isVariant := object.(*pvapi.PackageVariant)
		if !isVariant || fleetNames[fmt.Sprintf("%T/%s/%s", object, object.GetNamespace(), object.GetName())] {
			continue
		}
		objects = append(objects, variant)
		if owner, made := variant.Labels[packagevariantset.PackageVariantSetOwnerLabel]; !made || !setUIDs[types.UID(owner)] {
			gone = append(gone, variant)
		}
	}
	return objects, gone
}

func isSet(object client.Object) bool {
	_, ok := object.(*pvsapi.PackageVariantSet)
	return ok
}

func keepStatus(before, after client.Object) {
	switch was := before.(type) {
	case *pvapi.PackageVariant:
		after.(*pvapi.PackageVariant).Status = was.Status
	case *pvsapi.PackageVariantSet:
		after.(*pvsapi.PackageVariantSet).Status = was.Status
	}
}

// reconcile runs the set reconciler over every set, then the variant reconciler over every variant,
// pass after pass, until a pass writes nothing.
func (k *cluster) reconcile(ctx context.Context, passes int) (controllersReport, error) {
	variants := &packagevariant.PackageVariantReconciler{Client: k.client}
	sets := &packagevariantset.PackageVariantSetReconciler{Client: k.client}
	report := controllersReport{}
	for report.Passes < passes && !report.Converged {
		report.Passes++
		before := k.writes
		report.Errors = map[string]string{}
		var setList pvsapi.PackageVariantSetList
		if err := k.client.List(ctx, &setList); err != nil {
			return report, err
		}
		for _, set := range setList.Items {
			if _, err := sets.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&set)}); err != nil {
				report.Errors["PackageVariantSet "+set.Name] = err.Error()
			}
		}
		var variantList pvapi.PackageVariantList
		if err := k.client.List(ctx, &variantList); err != nil {
			return report, err
		}
		sort.Slice(variantList.Items, func(i, j int) bool { return variantList.Items[i].Name < variantList.Items[j].Name })
		for _, variant := range variantList.Items {
			if _, err := variants.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&variant)}); err != nil {
				report.Errors["PackageVariant "+variant.Name] = err.Error()
			}
		}
		report.Converged = k.writes == before
	}
	report.Writes = k.writes
	var variantList pvapi.PackageVariantList
	if err := k.client.List(ctx, &variantList); err != nil {
		return report, err
	}
	sort.Slice(variantList.Items, func(i, j int) bool { return variantList.Items[i].Name < variantList.Items[j].Name })
	report.PackageVariants = []variantReport{}
	for _, variant := range variantList.Items {
		report.PackageVariants = append(report.PackageVariants, variantReport{Name: variant.Name, Downstreams: variant.Status.DownstreamTargets, Conditions: variant.Status.Conditions})
	}
	return report, nil
}

// save writes the cluster's state for the next run.
func (k *cluster) save(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	state := clusterState{PackageRevs: k.porch.metadata.snapshot()}
	var variantList pvapi.PackageVariantList
	var setList pvsapi.PackageVariantSetList
	if err := k.client.List(ctx, &variantList); err != nil {
		return err
	}
	if err := k.client.List(ctx, &setList); err != nil {
		return err
	}
	var objects []client.Object
	for i := range variantList.Items {
		objects = append(objects, &variantList.Items[i])
	}
	for i := range setList.Items {
		objects = append(objects, &setList.Items[i])
	}
	for _, object := range objects {
		object.SetResourceVersion("")
		gvk, err := k.client.GroupVersionKindFor(object)
		if err != nil {
			return err
		}
		object.GetObjectKind().SetGroupVersionKind(gvk)
		raw, err := json.Marshal(object)
		if err != nil {
			return err
		}
		state.Objects = append(state.Objects, raw)
	}
	text, err := json.Marshal(state)
	if err != nil {
		return err
	}
	return os.WriteFile(path, text, 0o600)
}
