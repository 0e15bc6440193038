module github.com/jaekit/spar

go 1.26.0

require (
	github.com/pelletier/go-toml/v2 v2.2.4
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/tidwall/gjson v1.20.3
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
)
