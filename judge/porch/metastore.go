package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// memoryObjects stands in for the Kubernetes API server that Porch's repository cache keeps its
// internal PackageRev objects in (one per PackageRevision: labels, annotations, finalizers). The
// cache's own metadata store talks to it through the controller-runtime client interface; only the
// calls that store makes are served, each object kept as its JSON. The embedded interface is never
// set: a call Porch's cache does not make would stop the judge with a nil dereference, not pass.
type memoryObjects struct {
	client.WithWatch
	mutex   sync.Mutex
	objects map[client.ObjectKey][]byte
}

func newMemoryObjects() *memoryObjects {
	return &memoryObjects{objects: map[client.ObjectKey][]byte{}}
}

var packageRevResource = schema.GroupResource{Group: "config.porch.kpt.dev", Resource: "packagerevs"}

func (m *memoryObjects) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	stored, found := m.objects[key]
	if !found {
		return apierrors.NewNotFound(packageRevResource, key.Name)
	}
	return json.Unmarshal(stored, obj)
}

func (m *memoryObjects) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	var options client.ListOptions
	options.ApplyOptions(opts)
	m.mutex.Lock()
	defer m.mutex.Unlock()
	items := []json.RawMessage{}
	for key, stored := range m.objects {
		if options.Namespace != "" && key.Namespace != options.Namespace {
			continue
		}
		var meta struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(stored, &meta); err != nil {
			return err
		}
		if options.LabelSelector != nil && !options.LabelSelector.Matches(labels.Set(meta.Metadata.Labels)) {
			continue
		}
		items = append(items, stored)
	}
	joined, err := json.Marshal(map[string]any{"items": items})
	if err != nil {
		return err
	}
	return json.Unmarshal(joined, list)
}

func (m *memoryObjects) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	key := client.ObjectKeyFromObject(obj)
	if _, found := m.objects[key]; found {
		return apierrors.NewAlreadyExists(packageRevResource, key.Name)
	}
	return m.store(key, obj)
}

func (m *memoryObjects) Update(_ context.Context, obj client.Object, _ ...client.UpdateOption) error {
	return m.existing(obj, func(key client.ObjectKey) error { return m.store(key, obj) })
}

func (m *memoryObjects) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	return m.existing(obj, func(key client.ObjectKey) error {
		delete(m.objects, key)
		return nil
	})
}

// existing runs change on obj's key, under the lock, where an object is kept there: else NotFound,
// as the API server answers.
func (m *memoryObjects) existing(obj client.Object, change func(client.ObjectKey) error) error {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	key := client.ObjectKeyFromObject(obj)
	if _, found := m.objects[key]; !found {
		return apierrors.NewNotFound(packageRevResource, key.Name)
	}
	return change(key)
}

func (m *memoryObjects) store(key client.ObjectKey, obj client.Object) error {
	encoded, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("cannot keep %s: %w", key, err)
	}
	m.objects[key] = encoded
	return nil
}

// snapshot gives every object kept, by namespace/name: the state a later run starts from.
func (m *memoryObjects) snapshot() map[string]json.RawMessage {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	kept := make(map[string]json.RawMessage, len(m.objects))
	for key, stored := range m.objects {
		kept[key.String()] = stored
	}
	return kept
}

// restore keeps the objects of a snapshot.
func (m *memoryObjects) restore(kept map[string]json.RawMessage) {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	for name, stored := range kept {
		namespace, name, _ := strings.Cut(name, "/")
		m.objects[client.ObjectKey{Namespace: namespace, Name: name}] = stored
	}
}
