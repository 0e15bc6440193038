package main

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// packet is what this reviewer reads from packet.md.
type packet struct {
	head       string
	angles     []string
	checkPaths []string
	changed    []changed
	rules      []ruleDoc
}

type changed struct {
	status  string // added, modified, deleted, renamed, ...
	path    string
	oldPath string // a rename's or copy's base path, else ""
	check   bool   // listed under "Files changed in check paths"
}

// basePath is the file's path in base/.
func (c changed) basePath() string {
	if c.oldPath != "" {
		return c.oldPath
	}
	return c.path
}

// ruleDoc is a rule document as the packet numbers it.
type ruleDoc struct {
	name  string
	lines []string // lines[0] is line 1
}

var (
	headRe    = regexp.MustCompile("(?m)^- Head: `([0-9a-f]{7,64})`$")
	itemRe    = regexp.MustCompile("^- `([^`]+)`")
	changeRe  = regexp.MustCompile("^- ([a-z ()A-Z]+?) `([^`]+)`(?: \\(from `([^`]+)`\\))?")
	docHeadRe = regexp.MustCompile("^### `([^`]+)`$")
	numRe     = regexp.MustCompile(`^\s*(\d+)  (.*)$`)
)

// parsePacket reads the sections of packet.md this reviewer needs.
func parsePacket(text string) (*packet, error) {
	m := headRe.FindStringSubmatch(text)
	if m == nil {
		return nil, errors.New("no head commit in the packet")
	}
	p := &packet{head: m[1]}
	section, sub := "", ""
	var doc *ruleDoc
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			if section == "Rule documents" && doc != nil {
				if n := numRe.FindStringSubmatch(line); n != nil {
					i, _ := strconv.Atoi(n[1])
					if i == len(doc.lines)+1 {
						doc.lines = append(doc.lines, n[2])
					}
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "## "):
			section, sub = strings.TrimPrefix(line, "## "), ""
			doc = nil
			continue
		case strings.HasPrefix(line, "### "):
			sub = strings.TrimPrefix(line, "### ")
			if section == "Rule documents" {
				if d := docHeadRe.FindStringSubmatch(line); d != nil {
					p.rules = append(p.rules, ruleDoc{name: d[1]})
					doc = &p.rules[len(p.rules)-1]
				}
			}
			continue
		}
		switch section {
		case "Angles":
			if it := itemRe.FindStringSubmatch(line); it != nil {
				p.angles = append(p.angles, it[1])
			}
		case "Check paths":
			if it := itemRe.FindStringSubmatch(line); it != nil {
				p.checkPaths = append(p.checkPaths, it[1])
			}
		case "The change":
			if c := changeRe.FindStringSubmatch(line); c != nil {
				p.changed = append(p.changed, changed{status: c[1], path: c[2], oldPath: c[3], check: sub == "Files changed in check paths"})
			}
		}
	}
	if len(p.angles) == 0 {
		return nil, errors.New("no angles in the packet")
	}
	return p, nil
}

// ruleLine finds the first rule line that contains every word (case
// insensitive) and returns a link to it, "name:line", or "".
func (p *packet) ruleLine(words ...string) string {
	for _, d := range p.rules {
		for i, l := range d.lines {
			low := strings.ToLower(l)
			ok := true
			for _, w := range words {
				if !strings.Contains(low, strings.ToLower(w)) {
					ok = false
					break
				}
			}
			if ok {
				return d.name + ":" + strconv.Itoa(i+1)
			}
		}
	}
	return ""
}
