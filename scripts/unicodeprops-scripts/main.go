// Command unicodeprops-scripts prints Go's unicode.Scripts names, comma
// separated, for scripts/unicodeprops.mjs.
package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

func main() {
	var names []string
	for n := range unicode.Scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Print(strings.Join(names, ","))
}
