module github.com/jaekit/spar

go 1.26.0

require (
	github.com/hiddeco/sshsig v0.2.0
	github.com/in-toto/attestation v1.2.0
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/pelletier/go-toml/v2 v2.2.4
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/secure-systems-lab/go-securesystemslib v0.11.1
	github.com/tidwall/gjson v1.20.3
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
	google.golang.org/protobuf v1.36.11
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)
