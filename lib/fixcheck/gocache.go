package fixcheck

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A Go check builds with the user's Go build cache read only (docs/sandbox.md
// "Fix checks"): go runs spar-record again as its GOCACHEPROG, which answers
// a lookup from the run's own folder first, then from the user's cache
// (never written), and keeps what go stores in the run's own folder, which
// goes with the run. So no run leaves anything for the next, and a check
// does not compile the standard library again each run.

// cacheArg is the hidden first argument that makes spar-record the cache
// program of a check's go command.
const cacheArg = "__spar-gocache"

// Main serves as a check's Go cache program when the binary was started
// as one (CacheCommand); it never returns then. Call it first in main.
func Main() {
	if len(os.Args) == 4 && os.Args[1] == cacheArg {
		if err := serveCache(os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "spar: the check's Go cache:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// CacheCommand is the GOCACHEPROG value that serves seed (read only) and
// dir (the run's own), or "" when one of the paths cannot be said in it
// (go splits the value like a shell, and spar does not guess at quoting).
func CacheCommand(exe, seed, dir string) string {
	for _, p := range []string{exe, seed, dir} {
		if p == "" || strings.ContainsAny(p, "'\"\\ \t\n") {
			return ""
		}
	}
	return exe + " " + cacheArg + " " + seed + " " + dir
}

// The protocol of go's cache program (cmd/go/internal/cacheprog): one JSON
// request per line from go, a put followed by its body as a base64 JSON
// string on the next line; one JSON response per request.
type cacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type cacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// maxCacheBody bounds one object go stores (a test binary is tens of MiB).
const maxCacheBody = 1 << 30

type ownEntry struct {
	out  []byte
	size int64
	path string
}

func serveCache(seed, dir string, in io.Reader, out io.Writer) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	send := func(r cacheResponse) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := send(cacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	own := map[string]ownEntry{}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<20))
	for {
		var req cacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		resp := cacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			if e, ok := own[string(req.ActionID)]; ok {
				resp.OutputID, resp.Size, resp.DiskPath = e.out, e.size, e.path
			} else if o, size, t, p, ok := seedEntry(seed, req.ActionID); ok {
				resp.OutputID, resp.Size, resp.Time, resp.DiskPath = o, size, &t, p
			} else {
				resp.Miss = true
			}
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if req.BodySize > maxCacheBody {
					return fmt.Errorf("an object of %d bytes", req.BodySize)
				}
				if err := dec.Decode(&body); err != nil {
					return err
				}
			}
			if int64(len(body)) != req.BodySize || len(req.OutputID) != sha256.Size {
				resp.Err = "the body is not the size the request names"
				break
			}
			p := filepath.Join(dir, hex.EncodeToString(req.OutputID)+"-d")
			if err := os.WriteFile(p, body, 0o600); err != nil {
				resp.Err = err.Error()
				break
			}
			own[string(req.ActionID)] = ownEntry{out: req.OutputID, size: req.BodySize, path: p}
			resp.DiskPath = p
		case "close":
			return send(resp)
		default:
			resp.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := send(resp); err != nil {
			return err
		}
	}
}

// seedEntry looks an action up in a Go build cache folder as go's disk
// cache keeps it: <aa>/<action hex>-a holding "v1 <action> <output> <size>
// <time>\n" (each number right-aligned in 20 characters), the output at
// <oo>/<output hex>-d. Anything else is a miss.
func seedEntry(seed string, action []byte) (out []byte, size int64, t time.Time, path string, ok bool) {
	if seed == "" || len(action) != sha256.Size {
		return nil, 0, t, "", false
	}
	const hexSize = 2 * sha256.Size
	const entrySize = 2 + 1 + hexSize + 1 + hexSize + 1 + 20 + 1 + 20 + 1
	ah := hex.EncodeToString(action)
	b, err := readSmall(filepath.Join(seed, ah[:2], ah+"-a"), entrySize+1)
	if err != nil || len(b) != entrySize || string(b[:3]) != "v1 " || b[entrySize-1] != '\n' {
		return nil, 0, t, "", false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[1] != ah || len(f[2]) != hexSize {
		return nil, 0, t, "", false
	}
	out, err = hex.DecodeString(f[2])
	if err != nil {
		return nil, 0, t, "", false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	nano, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return nil, 0, t, "", false
	}
	path = filepath.Join(seed, f[2][:2], f[2]+"-d")
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return nil, 0, t, "", false
	}
	return out, size, time.Unix(0, nano), path, true
}

func readSmall(p string, max int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)))
}
