package server

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
)

func TestOpenAPIDocumentCoversTheRoutes(t *testing.T) {
	t.Parallel()
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"/api/jobs": {"get", "post"}, "/api/jobs/{id}": {"get", "delete"}, "/api/jobs/{id}/stop": {"post"},
		"/api/jobs/{id}/result": {"get"}, "/api/jobs/{id}/timing": {"get"}, "/api/jobs/{id}/series": {"get"},
		"/api/jobs/{id}/audit": {"get"}, "/api/jobs/{id}/config": {"get"}, "/api/jobs/{id}/output": {"get"},
		"/api/jobs/{id}/events": {"get"}, "/api/jobs/{id}/observed": {"get"}, "/api/jobs/{id}/agents": {"get"},
		"/api/targets": {"get"}, "/api/view/{name}": {"get"}, "/api/jobs/{id}/export": {"get"}, "/api/jobs/import": {"post"},
	}
	for p, methods := range want {
		for _, m := range methods {
			if _, ok := doc.Paths[p][m]; !ok {
				t.Errorf("OpenAPI document lacks %s %s", m, p)
			}
		}
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
}

// openAPISchema is the slice of an OpenAPI schema the tests read.
type openAPISchema struct {
	Ref                  string                     `json:"$ref"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	Properties           map[string]json.RawMessage `json:"properties"`
}

type openAPIDocument struct {
	Components struct {
		Schemas map[string]openAPISchema `json:"schemas"`
	} `json:"components"`
	Paths map[string]map[string]struct {
		RequestBody struct {
			Content map[string]struct {
				Schema openAPISchema `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
		Responses map[string]struct {
			Content map[string]struct {
				Schema openAPISchema `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
}

func parseOpenAPI(t *testing.T) openAPIDocument {
	t.Helper()
	var doc openAPIDocument
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// resolve follows a schema's $ref within the document.
func (d openAPIDocument) resolve(t *testing.T, s openAPISchema) openAPISchema {
	t.Helper()
	if s.Ref == "" {
		return s
	}
	name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
	r, found := d.Components.Schemas[name]
	if !ok || !found {
		t.Fatalf("unresolvable $ref %q", s.Ref)
	}
	return r
}

// jsonFields are the JSON names of a struct type's fields.
func jsonFields(typ reflect.Type) []string {
	var names []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// checkSameFields fails unless the schema's properties are exactly the
// struct's JSON fields.
func checkSameFields(t *testing.T, what string, s openAPISchema, typ reflect.Type) {
	t.Helper()
	fields := jsonFields(typ)
	if len(fields) == 0 {
		t.Fatalf("%s has no JSON fields", typ)
	}
	inStruct := map[string]bool{}
	for _, f := range fields {
		inStruct[f] = true
		if _, ok := s.Properties[f]; !ok {
			t.Errorf("%s lacks %s's field %q", what, typ, f)
		}
	}
	var extra []string
	for p := range s.Properties {
		if !inStruct[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s has properties %s has not: %v", what, typ, extra)
	}
}

// TestOpenAPIRequestIsTheSpec: the body of POST /api/jobs is config.Spec,
// so the document's request schema names exactly its JSON fields (and
// refuses others, as config.Decode does).
func TestOpenAPIRequestIsTheSpec(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	body, ok := doc.Paths["/api/jobs"]["post"].RequestBody.Content["application/json"]
	if !ok {
		t.Fatal("POST /api/jobs has no application/json request body")
	}
	s := doc.resolve(t, body.Schema)
	checkSameFields(t, "the POST /api/jobs request schema", s, reflect.TypeOf(config.Spec{}))
	if string(s.AdditionalProperties) != "false" {
		t.Error("the request schema allows unknown fields, which the server refuses")
	}
	for _, f := range []string{"kind", "workload", "db", "warehouses", "scale", "workers", "force", "confirm", "engine", "loader",
		"seed", "vu", "rampup", "duration", "interval", "mode", "isolation", "exec_mode", "max_retries", "pacing",
		"pacing_scale", "random_home", "client_cpus", "streams", "query_sets", "refresh", "validate"} {
		if _, ok := s.Properties[f]; !ok {
			t.Errorf("the request schema lacks %q", f)
		}
	}
}

// TestOpenAPIJobIsTheJobJSON: the Job schema (GET /api/jobs/{id}) names
// exactly report.JobJSON's fields.
func TestOpenAPIJobIsTheJobJSON(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	resp, ok := doc.Paths["/api/jobs/{id}"]["get"].Responses["200"].Content["application/json"]
	if !ok {
		t.Fatal("GET /api/jobs/{id} has no application/json answer")
	}
	checkSameFields(t, "the Job schema", doc.resolve(t, resp.Schema), reflect.TypeOf(report.JobJSON{}))
	checkSameFields(t, "the Agent schema", doc.Components.Schemas["Agent"], reflect.TypeOf(report.AgentJSON{}))
}

// TestOpenAPITargetsAndRefusals: GET /api/targets answers server.Targets,
// and every operation documents the guard's 403 (the state-changing ones
// its content type and origin rules).
func TestOpenAPITargetsAndRefusals(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	resp, ok := doc.Paths["/api/targets"]["get"].Responses["200"].Content["application/json"]
	if !ok {
		t.Fatal("GET /api/targets has no application/json answer")
	}
	checkSameFields(t, "the Targets schema", doc.resolve(t, resp.Schema), reflect.TypeOf(Targets{}))
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if _, ok := op.Responses["403"]; !ok {
				t.Errorf("%s %s does not document 403", method, path)
			}
		}
	}
	var raw struct {
		Info struct {
			Description string `json:"description"`
		} `json:"info"`
	}
	if err := json.Unmarshal(openAPIDoc, &raw); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Content-Type: application/json", "Origin", "Sec-Fetch-Site", "Host"} {
		if !strings.Contains(raw.Info.Description, want) {
			t.Errorf("the document's description does not mention %s", want)
		}
	}
}

// TestOpenAPIMixedIsTheMixedJSON: the result's mixed object (GET
// /api/jobs/{id}/result) and its parts name exactly report.MixedJSON's
// fields and its parts'.
func TestOpenAPIMixedIsTheMixedJSON(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	resp, ok := doc.Paths["/api/jobs/{id}/result"]["get"].Responses["200"].Content["application/json"]
	if !ok {
		t.Fatal("GET /api/jobs/{id}/result has no application/json answer")
	}
	var mixed openAPISchema
	if err := json.Unmarshal(resp.Schema.Properties["mixed"], &mixed); err != nil || mixed.Ref == "" {
		t.Fatalf("the result schema's mixed is %s (%v), want a $ref", resp.Schema.Properties["mixed"], err)
	}
	checkSameFields(t, "the Mixed schema", doc.resolve(t, mixed), reflect.TypeOf(report.MixedJSON{}))
	for name, typ := range map[string]reflect.Type{
		"MixedTx": reflect.TypeOf(report.MixedTxJSON{}), "MixedQuery": reflect.TypeOf(report.MixedQueryJSON{}),
		"MixedRun": reflect.TypeOf(report.MixedRunJSON{}),
	} {
		checkSameFields(t, "the "+name+" schema", doc.Components.Schemas[name], typ)
	}
}
