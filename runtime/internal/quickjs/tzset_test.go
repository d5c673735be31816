package quickjs

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// TestTzsetWritesAtMostTZNameMax: emscripten's tzset keeps each zone name
// in a static of TZNAME_MAX+1 = 7 bytes, so the host's _tzset_js writes at
// most six bytes and the NUL there, whatever the zone's name; before, it
// wrote up to 17 and ran into the statics that follow.
func TestTzsetWritesAtMostTZNameMax(t *testing.T) {
	orig := hostFuncs["_tzset_js"]
	var calls int
	var overrun []string
	hostFuncs["_tzset_js"] = func(ctx context.Context, m api.Module, st []uint64) {
		calls++
		mem := m.Memory()
		before := map[int][]byte{}
		for _, i := range []int{2, 3} {
			b, _ := mem.Read(uint32(st[i])+7, 16)
			before[i] = bytes.Clone(b)
		}
		orig(ctx, m, st)
		for _, i := range []int{2, 3} {
			after, _ := mem.Read(uint32(st[i])+7, 16)
			// The two names may be adjacent: the std name's tail is the
			// dst name's head, written by the same call.
			if i == 2 && uint32(st[3]) == uint32(st[2])+7 {
				continue
			}
			if !bytes.Equal(after, before[i]) {
				overrun = append(overrun, string(after))
			}
		}
	}
	t.Cleanup(func() { hostFuncs["_tzset_js"] = orig })

	art := loadTestArtifact(t)
	r, err := NewRuntime(context.Background(), RuntimeOptions{
		Artifact: art, CacheDir: cacheDir(t),
		Location: time.FixedZone("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 3600),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	inst, err := r.NewInstance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	c, err := inst.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	s := evalString(t, inst, c, `String(new Date(0).getTimezoneOffset()) + "," + new Date(0).getHours()`)
	if s != "-60,1" {
		t.Errorf("got %s, want -60,1", s)
	}
	if calls == 0 {
		t.Skip("tzset was not called: the build reads the zone another way")
	}
	if len(overrun) > 0 {
		t.Errorf("tzset wrote past a name's 7 bytes: %q", overrun)
	}
}
