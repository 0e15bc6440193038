package sparrecord

// spar-record's reading and writing of large envelope parts
// (docs/pipeline.md "Memory"): the findings are read one at a time, a
// checked result object only for the parts round.json keeps, findings.json
// is encoded into its file as it is written, and a raw result is compared
// with result.json without reading the file whole.

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/pipe"
)

// getResults decodes "results", each checked result object without its
// "findings" (buildRecord reads angles_checked, angles_unchecked and limits
// of it; the findings come classified in "findings"). Anything but the
// plain form spar-check writes is decoded whole.
func getResults(env *pipe.Envelope, out *[]envelope.Result) error {
	val, ok := env.Value("results")
	if !ok || val.Kind() != '[' {
		return env.Get("results", out)
	}
	els, err := val.Elements()
	if err != nil {
		return env.Get("results", out)
	}
	res := make([]envelope.Result, 0, len(els))
	for _, el := range els {
		var r envelope.Result
		b, ok := withoutFindings(el)
		if !ok {
			return env.Get("results", out)
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return env.Get("results", out) // its message
		}
		res = append(res, r)
	}
	*out = res
	return nil
}

// withoutFindings is the text of one results element with the findings
// member of its result object left out.
func withoutFindings(el pipe.Value) ([]byte, bool) {
	if el.Kind() != '{' {
		return nil, false
	}
	ms, err := el.Members()
	if err != nil {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		if m.Key != "result" || m.Kind() != '{' {
			if strings.EqualFold(m.Key, "result") && m.Key != "result" {
				return nil, false
			}
			v, err := m.Bytes()
			if err != nil {
				return nil, false
			}
			b.Write(v)
			continue
		}
		rms, err := m.Members()
		if err != nil {
			return nil, false
		}
		if err := pipe.WriteObjectWithout(&b, rms, "findings"); err != nil {
			return nil, false
		}
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// sameFile reports whether path is a regular file (not a link) holding
// exactly s, read a piece at a time. Any doubt is false: the file is then
// written again.
func sameFile(path, s string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(s)) {
		return false
	}
	buf := make([]byte, 64<<10)
	for off := 0; off < len(s); {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(s)-off)])
		if err != nil || string(buf[:n]) != s[off:off+n] {
			return false
		}
		off += n
	}
	return true
}
