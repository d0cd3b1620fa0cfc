package main

import (
	"bufio"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// yamlToJSON splits a YAML stream into documents with apimachinery's YAMLReader, the reader kubectl's
// resource builder splits files with, and converts each document with sigs.k8s.io/yaml.YAMLToJSON,
// which kubectl uses before it sends an object. Every document the reader returns is reported, empty
// ones included (their JSON is "null"); a reader error ends the list with that error.
func yamlToJSON(text string) answer {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	docs := []yamlDocument{}
	for {
		chunk, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			docs = append(docs, yamlDocument{Error: err.Error()})
			break
		}
		docs = append(docs, convertDocument(chunk))
	}
	return answer{Documents: docs}
}

// convertDocument converts one document.
func convertDocument(chunk []byte) yamlDocument {
	out, err := yaml.YAMLToJSON(chunk)
	if err != nil {
		return yamlDocument{Error: err.Error()}
	}
	text := string(out)
	return yamlDocument{JSON: &text}
}
