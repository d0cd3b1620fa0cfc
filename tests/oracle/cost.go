package main

import (
	"context"
	"fmt"
	"math"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// ruleCosts answers a "cost" request: every rule and message expression of the CRD's schemas with the
// cost the API server's CRD validation compares with its per-expression limit. The schemas are walked
// as CRD validation walks them (properties, additionalProperties, items), each node's rules compiled
// with the CEL schema context of that node, in the environment of a create.
func ruleCosts(text string) answer {
	decoded, err := decodeCRD(text)
	if err != nil {
		return rejected(err.Error())
	}
	crd := decoded.crd
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	costs := []ruleCost{}
	if crd.Spec.Validation != nil && crd.Spec.Validation.OpenAPIV3Schema != nil {
		s := crd.Spec.Validation.OpenAPIV3Schema
		schemaCosts(s, field.NewPath("spec", "validation", "openAPIV3Schema"), envSet, &costs)
	}
	for i, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			s := v.Schema.OpenAPIV3Schema
			schemaCosts(s, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"), envSet, &costs)
		}
	}
	return answer{Costs: costs}
}

// schemaCosts walks one schema's rules, when CRD validation would compile them at all: it gives the
// rules a CEL context only once the schema is structural and its defaults are valid. (Its finer gate,
// no compiling at a node with other errors at or below it, is not mirrored.)
func schemaCosts(s *apiextensions.JSONSchemaProps, fldPath *field.Path, envSet *environment.EnvSet, out *[]ruleCost) {
	ss, err := structuralschema.NewStructural(s)
	if err != nil || len(structuralschema.ValidateStructural(fldPath, ss)) > 0 {
		return
	}
	if errs, err := structuraldefaulting.ValidateDefaults(context.Background(), fldPath, ss, true, true); err != nil || len(errs) > 0 {
		return
	}
	walkCosts(s, fldPath, validation.RootCELContext(s), envSet, out)
}

// walkCosts compiles the rules of one node and walks its children.
func walkCosts(s *apiextensions.JSONSchemaProps, fldPath *field.Path, ctx *validation.CELSchemaContext, envSet *environment.EnvSet, out *[]ruleCost) {
	if s == nil {
		return
	}
	if len(s.XValidations) > 0 {
		compileCosts(s, fldPath, ctx, envSet, out)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walkCosts(s.AdditionalProperties.Schema, fldPath.Child("additionalProperties"), ctx.ChildAdditionalPropertiesContext(s.AdditionalProperties.Schema), envSet, out)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := s.Properties[name]
		walkCosts(&prop, fldPath.Child("properties").Key(name), ctx.ChildPropertyContext(&prop, name), envSet, out)
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			walkCosts(s.Items.Schema, fldPath.Child("items"), ctx.ChildItemsContext(s.Items.Schema), envSet, out)
		}
		for i := range s.Items.JSONSchemas {
			item := s.Items.JSONSchemas[i]
			walkCosts(&item, fldPath.Child("items").Index(i), ctx.ChildItemsContext(&item), envSet, out)
		}
	}
}

// compileCosts compiles one node's rules and records their costs.
func compileCosts(s *apiextensions.JSONSchemaProps, fldPath *field.Path, ctx *validation.CELSchemaContext, envSet *environment.EnvSet, out *[]ruleCost) {
	rules := fldPath.Child("x-kubernetes-validations")
	typeInfo, err := ctx.TypeInfo()
	if err != nil || typeInfo == nil {
		*out = append(*out, ruleCost{Path: rules.String(), Error: fmt.Sprintf("no type information: %v", err)})
		return
	}
	results, err := cel.Compile(typeInfo.Schema, typeInfo.DeclType, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		*out = append(*out, ruleCost{Path: rules.String(), Error: err.Error()})
		return
	}
	for i, cr := range results {
		cardinality := cr.MaxCardinality
		if ctx.MaxCardinality != nil {
			cardinality = *ctx.MaxCardinality
		}
		rc := ruleCost{
			Path:        rules.Index(i).Child("rule").String(),
			Rule:        s.XValidations[i].Rule,
			MaxCost:     cr.MaxCost,
			Cardinality: cardinality,
			Cost:        saturatingProduct(cr.MaxCost, cardinality),
		}
		if cr.Error != nil {
			rc.Error = cr.Error.Detail
		}
		*out = append(*out, rc)
		if s.XValidations[i].MessageExpression != "" {
			mc := ruleCost{
				Path:        rules.Index(i).Child("messageExpression").String(),
				Rule:        s.XValidations[i].MessageExpression,
				MaxCost:     cr.MessageExpressionMaxCost,
				Cardinality: 1,
				Cost:        cr.MessageExpressionMaxCost,
			}
			if cr.MessageExpressionError != nil {
				mc.Error = cr.MessageExpressionError.Detail
			}
			*out = append(*out, mc)
		}
	}
}

// saturatingProduct multiplies two costs, stopping at the largest uint64 as CRD validation does.
func saturatingProduct(cost, cardinality uint64) uint64 {
	if cost == 0 {
		return 0
	}
	if math.MaxUint64/cost < cardinality {
		return math.MaxUint64
	}
	return cost * cardinality
}
