// Package webapi is the Go side of the web-platform globals and Intl the
// sandbox gives programs on both engines (engine/prelude/web.js and
// intl.js): what JavaScript cannot do well or at all by itself — a WHATWG
// URL parser with IDNA, SHA digests, cryptographic randomness, and locale
// data (CLDR through golang.org/x/text, time zones through Go's database).
//
// Each engine's glue exposes Call to its prelude as one host function. It
// takes and returns strings; bytes travel
// in hex (QuickJS reaches Go through C strings, which end at a NUL);
// everything else as JSON. The prelude checks the size of every argument
// against the program's memory budget and against MaxArg before calling,
// and Call checks again, so a host call never allocates in Go more than a
// small multiple of MaxArg.
package webapi

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"
)

var start = time.Now()

// MaxArg is the largest argument, in bytes, a host call takes (the
// prelude refuses larger ones with a RangeError before calling).
const MaxArg = 32 << 20

// MaxRandom is the most bytes crypto.getRandomValues fills at once (the
// Web Crypto limit; more is a QuotaExceededError).
const MaxRandom = 65536

// Error is a failure the prelude throws as the named JavaScript error.
type Error struct {
	Name    string // TypeError, RangeError, SyntaxError
	Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

func typeError(format string, a ...any) *Error {
	return &Error{"TypeError", fmt.Sprintf(format, a...)}
}

func rangeError(format string, a ...any) *Error {
	return &Error{"RangeError", fmt.Sprintf(format, a...)}
}

// Call performs op on arg. Ops:
//
//	"digest" ALG "\n" HEX    the SHA-1/256/384/512 digest of the bytes, hex
//	"random" N               N random bytes, hex
//	"url"    JSON [input, base|null]   a URL record, or TypeError
//	"urlset" JSON [href, field, value] the record after a setter
//	"now"                    milliseconds on a monotonic clock
//	"intl"   JSON request    see intl.go
func Call(op, arg string) (string, error) { return CallIn("UTC", op, arg) }

// CallIn is Call in the time zone zone (a canonical name, see TimeZone):
// the zone of an Intl.DateTimeFormat (and toLocaleString) whose options
// name none.
func CallIn(zone, op, arg string) (string, error) {
	if len(arg) > 4*MaxArg {
		return "", rangeError("the argument is over the %d MiB a host call takes", MaxArg>>20)
	}
	switch op {
	case "digest":
		alg, data, _ := strings.Cut(arg, "\n")
		var h hash.Hash
		switch strings.ToUpper(alg) {
		case "SHA-1":
			h = sha1.New()
		case "SHA-256":
			h = sha256.New()
		case "SHA-384":
			h = sha512.New384()
		case "SHA-512":
			h = sha512.New()
		default:
			return "", &Error{"NotSupportedError", "Unrecognized algorithm name"}
		}
		b, err := hex.DecodeString(data)
		if err != nil {
			return "", typeError("bad digest data")
		}
		h.Write(b)
		return hex.EncodeToString(h.Sum(nil)), nil
	case "random":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return "", typeError("bad length")
		}
		if n > MaxRandom {
			return "", &Error{"QuotaExceededError", fmt.Sprintf("The ArrayBufferView's byte length (%d) exceeds the number of bytes of entropy available via this API (%d)", n, MaxRandom)}
		}
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b), nil
	case "url":
		var a []*string
		if err := json.Unmarshal([]byte(arg), &a); err != nil || len(a) != 2 || a[0] == nil {
			return "", typeError("bad url request")
		}
		var base *url
		if a[1] != nil {
			b, err := parseURL(*a[1], nil)
			if err != nil {
				return "", typeError("Invalid base URL")
			}
			base = b
		}
		u, err := parseURL(*a[0], base)
		if err != nil {
			return "", typeError("Invalid URL")
		}
		return record(u), nil
	case "urlset":
		var a [3]string
		if err := json.Unmarshal([]byte(arg), &a); err != nil {
			return "", typeError("bad url request")
		}
		u, err := parseURL(a[0], nil)
		if err != nil {
			return "", typeError("Invalid URL")
		}
		n, err := u.set(a[1], a[2])
		if err != nil {
			return "", typeError("Invalid URL")
		}
		return record(n), nil
	case "now":
		return strconv.FormatFloat(float64(time.Since(start).Nanoseconds())/1e6, 'f', 3, 64), nil
	case "intl":
		return intlCall(arg, zone)
	}
	return "", typeError("unknown host operation %q", op)
}

func record(u *url) string {
	b, _ := json.Marshal(u.record())
	return string(b)
}
