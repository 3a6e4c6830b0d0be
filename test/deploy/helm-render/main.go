// A test-only stand-in for `helm template`, for machines without Helm (not in Debian or npm).
// It renders a chart with Go's text/template and sprig (Debian's golang-github-masterminds-
// sprig-dev), implementing what Helm adds on top that charts use: include, tpl, required, fail,
// toYaml/fromYaml/toJson, lookup (empty, as in `helm template`, or the objects of -cluster FILE,
// as in an upgrade), .Files.Get, .Values (chart values
// merged with -f files, later files winning, a null removing the key), .Release, .Chart, .Capabilities, .Template, and
// Helm's "<no value>" -> "" rule. Output: the rendered manifests separated by `---` with
// `# Source:` comments, like `helm template`; with -notes, NOTES.txt only.
//
// Values are typed the way Helm types them: Helm reads YAML through JSON (sigs.k8s.io/yaml), so
// every number in a values file is a float64 (`toString 1000000` is "1e+06" there too), and
// toYaml/fromYaml go through JSON as well.
//
//	helm-render [-notes] [-name release] [-namespace ns] [-cluster objects.yaml] CHART_DIR [-f values.yaml ...]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"gopkg.in/yaml.v3"
)

// clusterFile: objects lookup returns, standing in for the cluster of `helm upgrade`
var clusterFile string

// clusterObjects reads clusterFile's documents (none without one)
func clusterObjects() ([]map[string]interface{}, error) {
	if clusterFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(clusterFile)
	if err != nil {
		return nil, err
	}
	var out []map[string]interface{}
	for _, doc := range strings.Split(string(b), "\n---") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		o, err := yamlViaJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", clusterFile, err)
		}
		out = append(out, o)
	}
	return out, nil
}

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

// chartFiles is Helm's .Files, reading below the chart directory (Get only)
type chartFiles struct{ dir string }

// Get returns a file's text, or "" when it cannot be read (as Helm does)
func (f chartFiles) Get(name string) string {
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return string(b)
}

type apiVersions []string

func (a apiVersions) Has(v string) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

// readYAML reads a YAML file as Helm does: YAML -> JSON -> Go values, so numbers are float64.
func readYAML(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := yamlViaJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func yamlViaJSON(b []byte) (map[string]interface{}, error) {
	raw := map[string]interface{}{}
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	j, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// merge overlays src onto dst: maps merge key by key, anything else replaces (Helm's coalescing).
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		// as Helm does: a null in a values file removes the key (the chart default with it)
		if v == nil {
			delete(dst, k)
			continue
		}
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				dst[k] = merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

// toYAML is Helm's toYaml: JSON first (float64 1000000 -> 1000000, not 1e+06), then YAML.
func toYAML(v interface{}) string {
	j, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var doc interface{}
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return ""
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: helm-render [-notes] [-name n] [-namespace ns] CHART_DIR [-f values.yaml ...]")
	os.Exit(2)
}

func main() {
	var files valueFiles
	notes := flag.Bool("notes", false, "render NOTES.txt only")
	flag.StringVar(&clusterFile, "cluster", "", "YAML of objects that lookup finds (as if in the cluster; an upgrade)")
	name := flag.String("name", "release", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	flag.Var(&files, "f", "values file (repeatable)")
	flag.Parse()
	if flag.NArg() < 1 {
		usage()
	}
	// flags after the chart directory (`CHART -f a.yaml`), as helm accepts them
	chart := flag.Arg(0)
	if err := flag.CommandLine.Parse(flag.Args()[1:]); err != nil || flag.NArg() != 0 {
		usage()
	}
	if err := render(chart, *name, *namespace, files, *notes); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func render(chartDir, name, namespace string, files []string, notes bool) error {
	meta, err := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	values, err := readYAML(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		override, err := readYAML(f)
		if err != nil {
			return err
		}
		values = merge(values, override)
	}
	chart := map[string]interface{}{}
	for k, v := range meta {
		chart[strings.ToUpper(k[:1])+k[1:]] = v
	}

	var paths []string
	err = filepath.Walk(filepath.Join(chartDir, "templates"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)

	root := template.New("chart").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m, err := yamlViaJSON([]byte(s))
		if err != nil {
			return map[string]interface{}{"Error": err.Error()}
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	cluster, err := clusterObjects()
	if err != nil {
		return err
	}
	// lookup apiVersion kind namespace name: the object of -cluster with those, else empty (as
	// `helm template` without a cluster); listing (an empty name) is not supported
	funcs["lookup"] = func(apiVersion, kind, ns, name string) map[string]interface{} {
		for _, o := range cluster {
			meta, _ := o["metadata"].(map[string]interface{})
			if o["apiVersion"] == apiVersion && o["kind"] == kind && meta["name"] == name && (meta["namespace"] == ns || (meta["namespace"] == nil && ns == namespace)) {
				return o
			}
		}
		return map[string]interface{}{}
	}
	funcs["include"] = func(string, interface{}) (string, error) { return "", nil }
	funcs["tpl"] = func(string, interface{}) (string, error) { return "", nil }
	root.Funcs(funcs)
	// include and tpl need the parsed template set itself
	root.Funcs(template.FuncMap{
		"include": func(n string, data interface{}) (string, error) {
			var buf bytes.Buffer
			err := root.ExecuteTemplate(&buf, n, data)
			return buf.String(), err
		},
		"tpl": func(text string, data interface{}) (string, error) {
			t, err := root.Clone()
			if err != nil {
				return "", err
			}
			t, err = t.New("tpl").Parse(text)
			if err != nil {
				return "", err
			}
			var buf bytes.Buffer
			err = t.Execute(&buf, data)
			return buf.String(), err
		},
	})
	rel := func(p string) string {
		r, _ := filepath.Rel(chartDir, p)
		return filepath.ToSlash(filepath.Join(fmt.Sprint(meta["name"]), r))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if _, err := root.New(rel(p)).Parse(string(b)); err != nil {
			return err
		}
	}
	ctx := func(p string) map[string]interface{} {
		return map[string]interface{}{
			"Values": values,
			"Chart":  chart,
			"Files":  chartFiles{chartDir},
			"Release": map[string]interface{}{
				"Name": name, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1,
			},
			"Capabilities": map[string]interface{}{
				"KubeVersion": map[string]interface{}{"Version": "v1.29.0", "Major": "1", "Minor": "29", "GitVersion": "v1.29.0"},
				"APIVersions": apiVersions{"v1", "apps/v1", "policy/v1", "autoscaling/v2", "networking.k8s.io/v1"},
			},
			"Template": map[string]interface{}{"Name": rel(p), "BasePath": rel(filepath.Join(chartDir, "templates"))},
		}
	}
	for _, p := range paths {
		base := filepath.Base(p)
		isNotes := base == "NOTES.txt"
		if strings.HasPrefix(base, "_") || isNotes != notes {
			continue
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, rel(p), ctx(p)); err != nil {
			return err
		}
		out := strings.ReplaceAll(buf.String(), "<no value>", "")
		if strings.TrimSpace(out) == "" {
			continue
		}
		if notes {
			fmt.Print(out)
		} else {
			fmt.Printf("---\n# Source: %s\n%s\n", rel(p), strings.TrimSpace(out))
		}
	}
	return nil
}
