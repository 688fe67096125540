package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A tiny OpenAPI v2 document with what the real one has: a kind with a group, one in the core
// group, nested $refs, int-or-string and a quantity.
const swagger = `{"definitions": {
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"description": "meta", "type": "object",
    "properties": {"name": {"type": "string"}, "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string", "description": "long"},
  "io.k8s.api.policy.v1.PodDisruptionBudgetSpec": {"type": "object",
    "properties": {"maxUnavailable": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
      "storage": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"}}},
  "io.k8s.api.policy.v1.PodDisruptionBudget": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "policy", "kind": "PodDisruptionBudget", "version": "v1"}],
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
      "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
      "spec": {"$ref": "#/definitions/io.k8s.api.policy.v1.PodDisruptionBudgetSpec"}}},
  "io.k8s.api.core.v1.Service": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "", "kind": "Service", "version": "v1"}],
    "properties": {"kind": {"type": "string"}, "apiVersion": {"type": "string"}}}
}}`

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              description: dropped
              properties:
                port:
                  x-kubernetes-int-or-string: true
                  anyOf: [{type: integer}, {type: string}]
                note: {type: string, nullable: true}
                free:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties: {a: {type: string}}
                replicas: {type: integer, minimum: 0}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-crd}
`

func TestSchemas(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "swagger.json")
	cr := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(sw, []byte(swagger), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cr, []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	n, err := run(sw, "v1.37.2", out, []string{cr})
	if err != nil || n != 3 {
		t.Fatalf("run: %d schemas, %v; want 3", n, err)
	}
	read := func(name string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	at := func(v any, keys ...string) any {
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	eq := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", what, got, want)
		}
	}
	strictDir := "v1.37.2-standalone-strict"

	// Named as kubeconform looks them up: kind, first label of the group, version.
	pdb := read(filepath.Join(strictDir, "poddisruptionbudget-policy-v1.json"))
	svc := read(filepath.Join(strictDir, "service-v1.json"))
	eq("$schema", pdb["$schema"], draft4)
	eq("pdb kind enum", at(pdb, "properties", "kind", "enum"), []any{"PodDisruptionBudget"})
	eq("pdb apiVersion enum", at(pdb, "properties", "apiVersion", "enum"), []any{"policy/v1"})
	eq("service apiVersion enum", at(svc, "properties", "apiVersion", "enum"), []any{"v1"})
	eq("root strict", pdb["additionalProperties"], false)
	eq("service has no definitions", svc["definitions"], nil)
	// Standalone: what it refers to, transitively, and nothing else.
	defs, _ := pdb["definitions"].(map[string]any)
	if len(defs) != 4 || defs["io.k8s.api.core.v1.Service"] != nil {
		t.Errorf("embedded definitions: %v", keys(defs))
	}
	eq("nested strict", at(defs, "io.k8s.api.policy.v1.PodDisruptionBudgetSpec", "additionalProperties"), false)
	eq("maps stay maps", at(defs, objectMeta, "properties", "labels", "additionalProperties"), map[string]any{"type": "string"})
	eq("descriptions dropped", at(defs, objectMeta, "description"), nil)
	eq("int-or-string", at(defs, "io.k8s.apimachinery.pkg.util.intstr.IntOrString"),
		map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}})
	eq("quantity", at(defs, quantity, "oneOf"), []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}})

	w := read(filepath.Join("crds", "example.com", "widget_v1.json"))
	eq("crd kind enum", at(w, "properties", "kind", "enum"), []any{"Widget"})
	eq("crd apiVersion enum", at(w, "properties", "apiVersion", "enum"), []any{"example.com/v1"})
	eq("crd metadata is ObjectMeta", at(w, "properties", "metadata"), map[string]any{"$ref": refPrefix + objectMeta})
	eq("crd root strict", w["additionalProperties"], false)
	spec := at(w, "properties", "spec")
	eq("crd spec strict", at(spec, "additionalProperties"), false)
	eq("crd description dropped", at(spec, "description"), nil)
	eq("crd preserve-unknown-fields stays open", at(spec, "properties", "free", "additionalProperties"), nil)
	eq("crd nullable", at(spec, "properties", "note", "type"), []any{"string", "null"})
	eq("crd int-or-string keeps its anyOf", at(spec, "properties", "port", "anyOf"),
		[]any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}})
	eq("crd integers", at(spec, "properties", "replicas", "minimum"), 0.0)
}

func TestRefusesWrongInput(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"v3.json":      `{"openapi": "3.0.0", "components": {}}`,
		"nokinds.json": `{"definitions": {"a": {"type": "object"}}}`,
		"dangling.json": `{"definitions": {"k": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "K", "version": "v1"}],
			"properties": {"x": {"$ref": "#/definitions/missing"}}}}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := run(p, "1.0.0", filepath.Join(dir, "out"), nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
