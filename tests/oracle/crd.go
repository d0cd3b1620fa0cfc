package main

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// scheme knows the CRD kinds (apiextensions.k8s.io v1 and v1beta1, and the internal version), with
// their defaulting functions and conversions.
var scheme = runtime.NewScheme()

func init() {
	install.Install(scheme)
}

// decodedCRD is a CRD read as the API server reads a create request's body: converted from YAML to
// JSON, decoded strictly into its version, defaulted, and converted to the internal version.
type decodedCRD struct {
	crd *apiextensions.CustomResourceDefinition
	// strict holds the strict decoder's findings (unknown and duplicate fields), which a request with
	// fieldValidation=Strict is refused for.
	strict []string
}

// decodeCRD reads a CRD; the error is the API server's refusal of a body it cannot decode.
func decodeCRD(text string) (*decodedCRD, error) {
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Strict: true})
	obj, _, err := decoder.Decode(data, nil, nil)
	var strict []string
	if err != nil {
		strictErr, ok := runtime.AsStrictDecodingError(err)
		if !ok || obj == nil {
			return nil, err
		}
		for _, e := range strictErr.Errors() {
			strict = append(strict, e.Error())
		}
	}
	scheme.Default(obj)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(obj, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the CRD to the internal version: %w", err)
	}
	return &decodedCRD{crd: internal, strict: strict}, nil
}

// validateCRD answers a "crd" request: the CRD registry strategy's preparation and validation of a
// create, then the generic ObjectMeta validation that follows it.
func validateCRD(text string) answer {
	decoded, err := decodeCRD(text)
	if err != nil {
		return rejected(err.Error())
	}
	crd := decoded.crd
	// The generic registry names an object that has only a generateName before it validates it.
	if crd.Name == "" && crd.GenerateName != "" {
		crd.Name = generatedName(crd.GenerateName)
	}
	// What the CRD strategy's PrepareForCreate does: status cleared, generation 1, the storage version
	// recorded as stored. (Its dropping of fields behind disabled feature gates has nothing to drop
	// with the release's default gates.)
	crd.Status = apiextensions.CustomResourceDefinitionStatus{}
	crd.Generation = 1
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
			break
		}
	}
	errs := validation.ValidateCustomResourceDefinition(context.Background(), crd)
	return fieldErrorAnswer(errs, nil, decoded.strict, nil)
}

// rejected is the answer for a request refused before validation.
func rejected(why string) answer {
	no := false
	return answer{Accepted: &no, Rejection: why}
}

// fieldErrorAnswer is the answer for validation's field errors, the paths pruning dropped and the
// strict decoder's findings.
func fieldErrorAnswer(errs field.ErrorList, unknown, strict, warnings []string) answer {
	accepted := len(errs) == 0 && len(unknown) == 0 && len(strict) == 0
	out := answer{Accepted: &accepted, UnknownFields: unknown, StrictErrors: strict, Warnings: warnings}
	for _, e := range errs {
		out.Errors = append(out.Errors, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail, Message: e.Error()})
	}
	return out
}

// generatedName is the name the registry generates from a generateName, with a fixed suffix of the
// generator's alphabet (the API server's is random) so that answers do not change between runs.
func generatedName(base string) string {
	const maxGeneratedNameLength = 58
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return base + "bcdfg"
}
