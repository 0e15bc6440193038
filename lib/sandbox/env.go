package sandbox

import (
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
)

// baseEnv are the variables every reviewer process gets (docs/sandbox.md,
// "The environment"): where it is and who runs it, the locale, the proxy
// settings (both spellings) and the certificates the CLIs reach their APIs
// through. A name ending in * is a prefix.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM",
	"LANG", "LANGUAGE", "LC_*", "TZ",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// presetEnv are each CLI's own variables, on top of baseEnv. claude's
// cloud providers' credentials pass only with the switch that makes claude
// use them (cloudEnv).
var presetEnv = map[string][]string{
	envelope.PresetClaude: {"ANTHROPIC_*", "CLAUDE_*", "DISABLE_*", "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS"},
	envelope.PresetCodex:  {"OPENAI_*", "CODEX_*", "AZURE_OPENAI_API_KEY"},
	envelope.PresetAgy:    {"GEMINI_*", "GOOGLE_*", "ANTIGRAVITY_*", "AGY_*"},
}

// cloudEnv: claude on Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK) gets the
// AWS variables, on Google Vertex AI (CLAUDE_CODE_USE_VERTEX) Google's.
var cloudEnv = map[string][]string{
	"CLAUDE_CODE_USE_BEDROCK": {"AWS_*"},
	"CLAUDE_CODE_USE_VERTEX":  {"GOOGLE_*", "GCLOUD_*", "CLOUD_ML_REGION", "VERTEX_REGION_*"},
}

// Environment is the environment of a reviewer process of preset (docs/sandbox.md,
// "The environment"): of environ (spar-exec's own, "NAME=value" items),
// only the variables baseEnv, the preset's own and extra (its
// configuration entry's env: names, or prefixes ending in *) allow; a
// command reviewer gets baseEnv and extra alone. names are the variables
// passed, sorted: what round.json records, never their values.
func Environment(preset string, extra []string, environ []string) (env, names []string) {
	allow := append(append(append([]string{}, baseEnv...), presetEnv[preset]...), extra...)
	if preset == envelope.PresetClaude {
		for _, kv := range environ {
			k, v, _ := strings.Cut(kv, "=")
			if cloud, ok := cloudEnv[k]; ok && v != "" && v != "0" && !strings.EqualFold(v, "false") {
				allow = append(allow, cloud...)
			}
		}
	}
	seen := map[string]bool{}
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || seen[k] || !allowed(k, allow) {
			continue
		}
		seen[k] = true
		env = append(env, kv)
		names = append(names, k)
	}
	sort.Strings(names)
	if names == nil {
		names = []string{}
	}
	return env, names
}

// allowed reports whether name is one of patterns (a name, or a prefix
// ending in *).
func allowed(name string, patterns []string) bool {
	for _, p := range patterns {
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, pre) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// ValidEnvPattern reports whether p is a pattern a configuration entry's
// env may hold: a variable name (letters, digits and _, not starting with
// a digit), or such a prefix followed by * (at least one character before
// it).
func ValidEnvPattern(p string) bool {
	p = strings.TrimSuffix(p, "*")
	if p == "" {
		return false
	}
	for i, c := range p {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
