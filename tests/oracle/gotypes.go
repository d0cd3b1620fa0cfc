package main

// `crdls-oracle go-types` writes, as JSON, what crdls needs to word a built-in object's decoding
// error as the API server's JSON decoder words it: for every kind the legacy scheme serves in a
// stable or beta version, the Go type its body is decoded into, and for each Go type reached from it
// the JSON fields (embedded `,inline` structs flattened into their parent, as Go's decoder promotes
// them), the type's name as `reflect` prints it, and what kind of value it takes. The file is
// server/crdls-builtins/data/go-types.json; the oracle test checks that it is current.

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// goType is one Go type of the table. Exactly one of the shape fields is set.
type goType struct {
	// Go is the type as reflect prints it ("v1.DeploymentSpec", "[]v1.Container", "int32").
	Go string `json:"go"`
	// Struct is the struct's bare name, which the decoder prints before a field path.
	Struct string `json:"struct,omitempty"`
	// Fields are a struct's JSON fields (embedded structs flattened), each to a type index.
	Fields map[string]int `json:"fields,omitempty"`
	// Via gives, for a field promoted from an embedded struct, the embedded fields' Go names
	// ("ProbeHandler"), which the decoder prints in a field path before the field's own name.
	Via map[string]string `json:"via,omitempty"`
	// Items is the element type of a slice (other than []byte).
	Items *int `json:"items,omitempty"`
	// Values is the value type of a map.
	Values *int `json:"values,omitempty"`
	// Scalar is "string", "bool", "int", "uint", "float", "bytes" or "any".
	Scalar string `json:"scalar,omitempty"`
	// Bits is an integer's size, for the decoder's overflow check.
	Bits int `json:"bits,omitempty"`
	// Custom names a type that decodes itself (json.Unmarshaler): "quantity", "int-or-string",
	// "time", "microtime", "duration", or "other" for one whose errors crdls does not word (any value passes).
	Custom string `json:"custom,omitempty"`
}

// goTypes is the file.
type goTypes struct {
	// Kinds maps "group/version/Kind" (the core group empty) to the index of the body's type.
	Kinds map[string]int `json:"kinds"`
	Types []goType       `json:"types"`
}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// customKinds are the json.Unmarshaler types whose errors crdls words, by reflect's name.
var customKinds = map[string]string{
	"resource.Quantity":  "quantity",
	"intstr.IntOrString": "int-or-string",
	"v1.Time":            "time",
	"v1.MicroTime":       "microtime",
	"v1.Duration":        "duration",
}

type tableBuilder struct {
	index map[reflect.Type]int
	types []goType
}

func (b *tableBuilder) add(t reflect.Type) int {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if i, ok := b.index[t]; ok {
		return i
	}
	i := len(b.types)
	b.index[t] = i
	b.types = append(b.types, goType{Go: t.String()})
	entry := goType{Go: t.String()}
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		entry.Custom = customKinds[t.String()]
		if entry.Custom == "" || !strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") {
			entry.Custom = "other"
		}
		b.types[i] = entry
		return i
	}
	switch t.Kind() {
	case reflect.Struct:
		entry.Struct = t.Name()
		entry.Fields = map[string]int{}
		entry.Via = map[string]string{}
		b.fields(t, "", entry.Fields, entry.Via)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			entry.Scalar = "bytes"
		} else {
			items := b.add(t.Elem())
			entry.Items = &items
		}
	case reflect.Map:
		values := b.add(t.Elem())
		entry.Values = &values
	case reflect.String:
		entry.Scalar = "string"
	case reflect.Bool:
		entry.Scalar = "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		entry.Scalar, entry.Bits = "int", t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		entry.Scalar, entry.Bits = "uint", t.Bits()
	case reflect.Float32, reflect.Float64:
		entry.Scalar, entry.Bits = "float", t.Bits()
	case reflect.Interface:
		entry.Scalar = "any"
	default:
		panic(fmt.Sprintf("go-types: %s has a kind the table does not know: %s", t, t.Kind()))
	}
	b.types[i] = entry
	return i
}

// fields adds the JSON fields of struct t to out: a field's JSON name is its tag's first part, an
// untagged exported field its Go name, and an embedded struct without a name (or with `,inline`)
// gives its own fields.
func (b *tableBuilder) fields(t reflect.Type, via string, out map[string]int, vias map[string]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			inner := f.Name
			if via != "" {
				inner = via + "." + f.Name
			}
			b.fields(ft, inner, out, vias)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := out[name]; !taken {
			out[name] = b.add(f.Type)
			if via != "" {
				vias[name] = via
			}
		}
	}
}

// writeGoTypes writes the table of every external kind of the legacy scheme.
func writeGoTypes(w io.Writer) error {
	b := &tableBuilder{index: map[reflect.Type]int{}}
	kinds := map[string]int{}
	var names []string
	for gvk := range legacyscheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") {
			continue
		}
		names = append(names, gvk.Group+"/"+gvk.Version+"/"+gvk.Kind)
	}
	sort.Strings(names)
	for _, name := range names {
		parts := strings.SplitN(name, "/", 3)
		gvk := legacyscheme.Scheme.AllKnownTypes()
		for k, t := range gvk {
			if k.Group == parts[0] && k.Version == parts[1] && k.Kind == parts[2] {
				kinds[name] = b.add(t)
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	return enc.Encode(goTypes{Kinds: kinds, Types: b.types})
}
