// Package config decides the applied configuration (docs/pipeline.md §3):
// the user configuration source order (G16, G18), the [[reviewers]] keys and
// preset defaults (G17, G19–G21), --reviewers, --model and --effort (G25),
// the project configuration .jaekit/spar.toml (G22–G24), and the applied
// configuration record with its digest (docs/pipeline.md §1, §2).
package config
