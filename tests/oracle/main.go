// Command crdls-oracle answers, for crdls's differential tests, what the Kubernetes API server's own
// libraries say about YAML, custom resources and CRDs. It reads one JSON request per line on standard
// input and writes one JSON answer per line on standard output, so a test starts it once for many
// cases. The operations are described in README.md beside this file; the wiring of the API server's
// pieces is ours, written after reading how the apiextensions-apiserver's handler and registry
// strategies call them.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// request is one line of input.
type request struct {
	// Op is "yaml", "cr", "crd", "cost" or "native".
	Op string `json:"op"`
	// Text is the YAML of a "yaml" request.
	Text string `json:"text"`
	// CRD is the CustomResourceDefinition's YAML (or JSON).
	CRD string `json:"crd"`
	// Object is the custom resource's YAML (a built-in object's, for "native").
	Object string `json:"object"`
	// Old is the stored object of an update; empty for a create.
	Old string `json:"old"`
	// Subresource is "" for the main resource or "status".
	Subresource string `json:"subresource"`
}

// fieldError is one field.Error of the API server's answer.
type fieldError struct {
	// Type is the error's type as the API server names it in a Status cause ("FieldValueInvalid").
	Type string `json:"type"`
	// Field is the error's field path.
	Field string `json:"field"`
	// Detail is the error's detail text.
	Detail string `json:"detail"`
	// Message is err.Error(): the text a user reads.
	Message string `json:"message"`
}

// yamlDocument is the JSON of one document of a YAML stream, or the error converting it.
type yamlDocument struct {
	JSON  *string `json:"json,omitempty"`
	Error string  `json:"error,omitempty"`
}

// ruleCost is one rule's (or message expression's) estimated cost.
type ruleCost struct {
	// Path is the API server's path of the expression ("...x-kubernetes-validations[0].rule").
	Path string `json:"path"`
	// Rule is the expression.
	Rule string `json:"rule"`
	// MaxCost is the estimated cost of one evaluation.
	MaxCost uint64 `json:"maxCost"`
	// Cardinality is how many times it can run per object, as the API server's CRD validation
	// counts it (1 for a message expression).
	Cardinality uint64 `json:"cardinality"`
	// Cost is what the API server compares with the per-expression limit: MaxCost times Cardinality.
	Cost uint64 `json:"cost"`
	// Error is the expression's compile error, when it has one.
	Error string `json:"error,omitempty"`
}

// answer is one line of output; only the fields of the request's operation are set.
type answer struct {
	// Accepted says whether the API server accepts the request with strict field validation.
	Accepted *bool `json:"accepted,omitempty"`
	// Errors are the field errors of validation (run as with fieldValidation=Warn, so they are known
	// even when unknown fields would stop a strict request first).
	Errors []fieldError `json:"errors,omitempty"`
	// UnknownFields are the paths pruning dropped, which strict field validation rejects.
	UnknownFields []string `json:"unknownFields,omitempty"`
	// StrictErrors are the strict decoder's own findings (duplicate fields).
	StrictErrors []string `json:"strictErrors,omitempty"`
	// Rejection is a refusal that is not a list of field errors: an object that cannot be decoded,
	// a kind or version the CRD does not serve.
	Rejection string `json:"rejection,omitempty"`
	// Warnings are the warnings the API server would send back.
	Warnings []string `json:"warnings,omitempty"`
	// Documents are the JSON documents of a "yaml" request.
	Documents []yamlDocument `json:"documents,omitempty"`
	// Costs are the rules of a "cost" request.
	Costs []ruleCost `json:"costs,omitempty"`
	// Oracle is set when the request itself could not be served: a bad request line, an unknown
	// operation, a CRD the oracle could not read, a panic.
	Oracle string `json:"oracle,omitempty"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "go-types" {
		if err := writeGoTypes(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "crdls-oracle:", err)
			os.Exit(1)
		}
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if encodeErr := enc.Encode(serve(line)); encodeErr != nil {
				fmt.Fprintln(os.Stderr, "crdls-oracle: writing an answer:", encodeErr)
				os.Exit(1)
			}
			if flushErr := out.Flush(); flushErr != nil {
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "crdls-oracle: reading a request:", err)
			os.Exit(1)
		}
	}
}

// serve answers one request line; a panic becomes an answer saying so.
func serve(line []byte) (ans answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = answer{Oracle: fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Oracle: "bad request line: " + err.Error()}
	}
	switch req.Op {
	case "yaml":
		return yamlToJSON(req.Text)
	case "cr":
		return validateCustomResource(req)
	case "crd":
		return validateCRD(req.CRD)
	case "cost":
		return ruleCosts(req.CRD)
	case "native":
		return validateBuiltin(req)
	default:
		return answer{Oracle: fmt.Sprintf("unknown op %q", req.Op)}
	}
}
