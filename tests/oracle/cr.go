package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericrequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"

	// The apiextensions feature gates (ratcheting, selectable fields) at the release's defaults.
	_ "k8s.io/apiextensions-apiserver/pkg/features"
)

// strategy is what the oracle calls of the custom-resource registry strategies (the main resource's
// and the status subresource's).
type strategy interface {
	NamespaceScoped() bool
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
}

// served is one served version of a CRD, set up as the API server's CRD handler sets it up.
type served struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	preserve   bool
	main       strategy
	status     strategy
	// hasStatus says whether the version has the status subresource, so a /status path.
	hasStatus bool
}

// servedCRD is a CRD read for "cr" requests, cached by its text (compiling its rules is the slow part).
type servedCRD struct {
	crd      *apiextensions.CustomResourceDefinition
	versions map[string]*served
	err      error
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*servedCRD{}
)

// serveCRD reads a CRD and sets up every version that has a schema.
func serveCRD(text string) *servedCRD {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[text]; ok {
		return s
	}
	s := &servedCRD{versions: map[string]*served{}}
	cache[text] = s
	decoded, err := decodeCRD(text)
	if err != nil {
		s.err = err
		return s
	}
	crd := decoded.crd
	s.crd = crd
	preserve := crd.Spec.PreserveUnknownFields != nil && *crd.Spec.PreserveUnknownFields
	namespaced := crd.Spec.Scope == apiextensions.NamespaceScoped
	for _, v := range crd.Spec.Versions {
		validationSchema, err := apiextensions.GetSchemaForVersion(crd, v.Name)
		if err != nil {
			s.err = err
			return s
		}
		var props *apiextensions.JSONSchemaProps
		if validationSchema != nil {
			props = validationSchema.OpenAPIV3Schema
		}
		// The structural schema, defaults pruned of unknown fields, as the handler keeps it.
		var structural *structuralschema.Structural
		if props != nil {
			structural, err = structuralschema.NewStructural(props)
			if err != nil && !preserve {
				s.err = fmt.Errorf("version %s: the schema is not structural: %w", v.Name, err)
				return s
			}
			if !preserve {
				structural = structural.DeepCopy()
				if err := structuraldefaulting.PruneDefaults(structural); err != nil {
					s.err = fmt.Errorf("version %s: pruning defaults: %w", v.Name, err)
					return s
				}
			}
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(props)
		if err != nil {
			s.err = err
			return s
		}
		subresources, err := apiextensions.GetSubresourcesForVersion(crd, v.Name)
		if err != nil {
			s.err = err
			return s
		}
		var status *apiextensions.CustomResourceSubresourceStatus
		var scale *apiextensions.CustomResourceSubresourceScale
		var statusValidator apiservervalidation.SchemaValidator
		if subresources != nil {
			status = subresources.Status
			scale = subresources.Scale
			if status != nil && props != nil && props.Properties != nil {
				if statusSchema, ok := props.Properties["status"]; ok {
					statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema)
					if err != nil {
						s.err = err
						return s
					}
				}
			}
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		main := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), namespaced, gvk, validator, statusValidator, structural, status, scale, nil)
		s.versions[v.Name] = &served{
			gvk:        gvk,
			structural: structural,
			preserve:   preserve,
			main:       main,
			status:     customresource.NewStatusStrategy(main),
			hasStatus:  status != nil,
		}
		if !v.Served {
			delete(s.versions, v.Name)
		}
	}
	return s
}

// unstructuredCreator creates the objects the JSON decoder decodes into.
type unstructuredCreator struct{}

func (unstructuredCreator) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}

// decoded is a custom resource after decoding: pruned, defaulted, its ObjectMeta coerced.
type decoded struct {
	obj     *unstructured.Unstructured
	unknown []string
	strict  []string
	version *served
}

// decodeObject reads a custom resource as the API server reads a request's body for the version it
// names: YAML converted to JSON (as kubectl does), decoded by the JSON serializer (strictly when
// strict is set), then the handler's coercion (ObjectMeta read and checked, unknown fields pruned,
// nulls dropped where the schema does not allow them), defaulting, and the coercion again that
// conversion to the internal version runs. The error is a refusal before validation.
func decodeObject(s *servedCRD, text string, strict bool) (*decoded, error) {
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, unstructuredCreator{}, crdserverscheme.NewUnstructuredObjectTyper(), json.SerializerOptions{Strict: strict})
	obj, gvk, err := decoder.Decode(data, nil, &unstructured.Unstructured{})
	out := &decoded{}
	if err != nil {
		strictErr, ok := runtime.AsStrictDecodingError(err)
		if !ok || obj == nil {
			return nil, err
		}
		for _, e := range strictErr.Errors() {
			out.strict = append(out.strict, e.Error())
		}
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("decoded a %T, not an unstructured object", obj)
	}
	if gvk.Group != s.crd.Spec.Group || gvk.Kind != s.crd.Spec.Names.Kind {
		return nil, fmt.Errorf("the CRD %s does not serve %s", s.crd.Name, gvk)
	}
	version, ok := s.versions[gvk.Version]
	if !ok {
		return nil, fmt.Errorf("the CRD %s does not serve version %s", s.crd.Name, gvk.Version)
	}
	out.version = version
	unknown, err := coerce(u, version, strict)
	if err != nil {
		return nil, err
	}
	out.unknown = unknown
	if version.structural != nil {
		structuraldefaulting.Default(u.UnstructuredContent(), version.structural)
	}
	if _, err := coerce(u, version, false); err != nil {
		return nil, err
	}
	out.obj = u
	return out, nil
}

// coerce is the CRD handler's schema coercion of a decoded custom resource, step by step: kind,
// apiVersion and ObjectMeta are read aside, the object is pruned and its nulls dropped, embedded
// ObjectMeta is coerced, and the root's fields are put back. It returns the pruned paths when asked.
func coerce(u *unstructured.Unstructured, v *served, track bool) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.UnstructuredContent(), "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.UnstructuredContent(), "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: track})
	if err != nil {
		return nil, err
	}
	if v.structural != nil {
		if !v.preserve {
			unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: track})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
		}
		coerceErr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: track})
		if coerceErr != nil {
			return nil, coerceErr
		}
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// addressedVersion is the served version an object's apiVersion names, if the CRD serves it: what
// the request's path holds, read before the body is decoded.
func addressedVersion(s *servedCRD, text string) *served {
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if stdjson.Unmarshal(data, &head) != nil {
		return nil
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil || gv.Group != s.crd.Spec.Group {
		return nil
	}
	return s.versions[gv.Version]
}

// validateCustomResource answers a "cr" request: a create, or an update when an old object is given.
func validateCustomResource(req request) answer {
	s := serveCRD(req.CRD)
	if s.err != nil {
		return answer{Oracle: "the CRD: " + s.err.Error()}
	}
	if req.Subresource == "status" {
		// kubectl addresses the request by the body's apiVersion; a version without the status
		// subresource has no /status path, so it is answered 404 before the body is decoded.
		if v := addressedVersion(s, req.Object); v != nil && !v.hasStatus {
			return rejected("the server could not find the requested resource")
		}
	}
	obj, err := decodeObject(s, req.Object, true)
	if err != nil {
		return rejected(err.Error())
	}
	v := obj.version
	strat := v.main
	if req.Subresource == "status" {
		if !v.hasStatus {
			// The handler serves no /status for the version: the request is answered 404.
			return rejected("the server could not find the requested resource")
		}
		strat = v.status
	} else if req.Subresource != "" {
		return answer{Oracle: fmt.Sprintf("unknown subresource %q", req.Subresource)}
	}
	u := obj.obj
	// The request's namespace: the object's own, or the one kubectl sends when it names none.
	namespace := ""
	if strat.NamespaceScoped() {
		namespace = u.GetNamespace()
		if namespace == "" {
			namespace = "default"
		}
	}
	ctx := genericrequest.WithNamespace(context.Background(), namespace)
	if req.Old == "" {
		if req.Subresource != "" {
			return answer{Oracle: "a subresource is only ever updated: give an old object"}
		}
		errs, warnings, err := create(ctx, strat, u, namespace)
		if err != nil {
			return rejected(err.Error())
		}
		return fieldErrorAnswer(errs, obj.unknown, obj.strict, warnings)
	}
	old, err := decodeObject(s, req.Old, false)
	if err != nil {
		return answer{Oracle: "the old object: " + err.Error()}
	}
	if old.version != v {
		return answer{Oracle: "the old object is of another version"}
	}
	errs, warnings, err := update(ctx, strat, u, old.obj, namespace)
	if err != nil {
		return rejected(err.Error())
	}
	return fieldErrorAnswer(errs, obj.unknown, obj.strict, warnings)
}

// create is what the generic registry does around a strategy on create: a generated name, the system
// fields, the namespace matched to the request's, the strategy's preparation and validation, and the
// generic ObjectMeta validation when the strategy found nothing.
func create(ctx context.Context, strat strategy, u *unstructured.Unstructured, namespace string) (field.ErrorList, []string, error) {
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(generatedName(u.GetGenerateName()))
	}
	rest.FillObjectMetaSystemFields(u)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, strat.NamespaceScoped()), u); err != nil {
		return nil, nil, err
	}
	strat.PrepareForCreate(ctx, u)
	creating, ok := strat.(rest.RESTCreateStrategy)
	if !ok {
		return nil, nil, fmt.Errorf("the strategy %T cannot create", strat)
	}
	// The registry's own validation of a create: the strategy's, then the common ObjectMeta checks
	// when it found nothing (and declarative validation where a strategy has it).
	if errs := rest.ValidateCreate(ctx, u, creating); len(errs) > 0 {
		return errs, nil, nil
	}
	return nil, strat.WarningsOnCreate(ctx, u), nil
}

// update is what the generic registry does around a strategy on update. The stored object gets the
// system fields a create gives it; the new object carries over what an apply's patch would (uid,
// resourceVersion, creationTimestamp), and then the registry's own carrying over, the strategy's
// preparation, the common ObjectMeta checks and the strategy's update validation run.
func update(ctx context.Context, strat strategy, u, old *unstructured.Unstructured, namespace string) (field.ErrorList, []string, error) {
	if old.GetName() == "" && old.GetGenerateName() != "" {
		old.SetName(u.GetName())
	}
	rest.FillObjectMetaSystemFields(old)
	old.SetResourceVersion("1")
	old.SetGeneration(1)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, strat.NamespaceScoped()), old); err != nil {
		return nil, nil, err
	}
	if u.GetResourceVersion() == "" {
		u.SetResourceVersion(old.GetResourceVersion())
	}
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, strat.NamespaceScoped()), u); err != nil {
		return nil, nil, err
	}
	u.SetGeneration(old.GetGeneration())
	strat.PrepareForUpdate(ctx, u, old)
	if len(u.GetUID()) == 0 {
		u.SetUID(old.GetUID())
	}
	if created := old.GetCreationTimestamp(); !created.IsZero() {
		u.SetCreationTimestamp(created)
	}
	updating, ok := strat.(rest.RESTUpdateStrategy)
	if !ok {
		return nil, nil, fmt.Errorf("the strategy %T cannot update", strat)
	}
	// The registry's own validation of an update: the common ObjectMeta checks, then the strategy's.
	if errs := rest.ValidateUpdate(ctx, u, old, updating); len(errs) > 0 {
		return errs, nil, nil
	}
	return nil, strat.WarningsOnUpdate(ctx, u, old), nil
}
