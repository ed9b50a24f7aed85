package server

import _ "embed"

// openAPIDoc is the API's OpenAPI document, served at /api/openapi.json.
// Its JobRequest schema is config.Spec's JSON (a test keeps them in step).
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPIDocument returns the API's OpenAPI document (JSON).
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDoc...) }
