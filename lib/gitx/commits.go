package gitx

import (
	"bytes"
	"fmt"
	"strings"
)

// Commits splits ids, full commit IDs, into those the repository of dir
// holds as commits and those it lacks (absent, or another kind of object),
// each in the order given, with one git cat-file --batch-check whatever
// their number.
func Commits(dir string, ids []string) (have, lack []string, err error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	for _, id := range ids {
		if id == "" || strings.ContainsAny(id, " \t\n") {
			return nil, nil, fmt.Errorf("%q is not an object id", id)
		}
	}
	cmd := Command(dir, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, nil, &Error{Args: []string{"cat-file", "--batch-check"}, Msg: msg, Err: err}
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(ids) {
		return nil, nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d objects", len(lines), len(ids))
	}
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 2 && f[1] == "commit" && f[0] == ids[i] {
			have = append(have, ids[i])
		} else {
			lack = append(lack, ids[i])
		}
	}
	return have, lack, nil
}
