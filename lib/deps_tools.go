//go:build tools

// Package lib pins modules that only tests and fuzzers import, so that
// `go mod tidy` keeps them and a fresh machine fetches them.
package lib

import (
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/santhosh-tekuri/jsonschema/v5"
	_ "github.com/tidwall/gjson"
	_ "mvdan.cc/sh/v3/syntax"
)
