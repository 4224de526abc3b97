// render_chart renders a Helm chart's templates the way Helm 3's engine does, for tests where Helm itself is not
// installed (it is not in Debian): Go's text/template with sprig's functions plus Helm's own (include, tpl,
// required, toYaml, fromYaml, toJson, fromJson, lookup), .Values from values.yaml merged with further values files
// (as helm -f gives them), .Release, .Chart, .Files and .Capabilities. It checks template syntax and what the
// values render; it is not Helm (no subcharts, no schema, no hooks). Build in GOPATH mode against Debian's
// golang-*-dev packages:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run render_chart.go CHART RELEASE NAMESPACE [values.yaml...]
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

type files struct{ root string }

// Get returns a file of the chart as Helm's .Files.Get does: its text, or "" when absent.
func (f files) Get(name string) string {
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		return ""
	}
	return string(b)
}

func toYAML(v interface{}) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func readValues(path string) map[string]interface{} {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(b, &m); err != nil {
		fail("%s: %v", path, err)
	}
	return m
}

// merge lays src over dst as Helm coalesces values: maps merge key by key, anything else replaces.
func merge(dst, src map[string]interface{}) {
	for k, v := range src {
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "render_chart: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 4 {
		fail("usage: render_chart CHART RELEASE NAMESPACE [values.yaml...]")
	}
	chartDir, release, namespace := os.Args[1], os.Args[2], os.Args[3]
	chart := readValues(filepath.Join(chartDir, "Chart.yaml"))
	values := readValues(filepath.Join(chartDir, "values.yaml"))
	for _, extra := range os.Args[4:] {
		merge(values, readValues(extra))
	}
	name, _ := chart["name"].(string)
	top := map[string]interface{}{
		"Values": values,
		"Release": map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart": map[string]interface{}{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"],
			"Description": chart["description"], "Type": chart["type"], "KubeVersion": chart["kubeVersion"]},
		"Files": files{chartDir},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.26.1", "Major": "1", "Minor": "26"}},
	}

	t := template.New("chart")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["toJson"] = func(v interface{}) string { b, _ := json.Marshal(v); return string(b) }
	funcs["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := t.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		c, err := t.Clone()
		if err != nil {
			return "", err
		}
		if _, err := c.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = c.ExecuteTemplate(&buf, "tpl", data)
		return buf.String(), err
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return v, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	funcs["lookup"] = func(...interface{}) map[string]interface{} { return map[string]interface{}{} }
	t.Funcs(funcs).Option("missingkey=zero")

	paths, _ := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	sort.Strings(paths)
	var rendered []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			fail("%v", err)
		}
		tname := name + "/templates/" + filepath.Base(p)
		if _, err := t.New(tname).Parse(string(b)); err != nil {
			fail("%v", err)
		}
		if !strings.HasPrefix(filepath.Base(p), "_") {
			rendered = append(rendered, tname)
		}
	}
	for _, tname := range rendered {
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, tname, top); err != nil {
			fail("%v", err)
		}
		out := strings.ReplaceAll(buf.String(), "<no value>", "")
		if strings.HasSuffix(tname, "NOTES.txt") || strings.TrimSpace(out) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", tname, strings.TrimSpace(out))
	}
}
