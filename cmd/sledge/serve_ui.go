package main

import (
	"net/http"

	"github.com/sledge-bench/sledge/internal/webui"
)

// uiHandler serves the embedded web UI for every path outside /api/.
func uiHandler() http.Handler { return webui.Handler() }
