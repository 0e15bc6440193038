package glob

import "path"

var pathMatch = path.Match
