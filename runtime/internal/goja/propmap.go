package goja

import "github.com/codemode/codemode/runtime/internal/goja/unistring"

// codemode patch (whole file): an object's own string-keyed properties.
//
// goja kept them in a Go map, whose smallest allocation is a group of
// eight slots (~290 bytes, and a 48-byte header): most objects have one to
// three properties (every function has length and name), and a sandbox
// realm makes hundreds of them per runtime. propMap keeps up to
// propMapSmall properties in a slice searched linearly, and moves them
// to a map past that.
type propMap struct {
	small []propEntry
	big   map[unistring.String]Value
}

type propEntry struct {
	name  unistring.String
	value Value
}

const propMapSmall = 16

func (m *propMap) get(name unistring.String) Value {
	v, _ := m.get2(name)
	return v
}

func (m *propMap) get2(name unistring.String) (Value, bool) {
	if m.big != nil {
		v, ok := m.big[name]
		return v, ok
	}
	for i := range m.small {
		if m.small[i].name == name {
			return m.small[i].value, true
		}
	}
	return nil, false
}

func (m *propMap) has(name unistring.String) bool {
	_, ok := m.get2(name)
	return ok
}

func (m *propMap) set(name unistring.String, v Value) {
	if m.big != nil {
		m.big[name] = v
		return
	}
	for i := range m.small {
		if m.small[i].name == name {
			m.small[i].value = v
			return
		}
	}
	if len(m.small) < propMapSmall {
		if m.small == nil {
			m.small = make([]propEntry, 0, 2)
		}
		m.small = append(m.small, propEntry{name, v})
		return
	}
	m.big = make(map[unistring.String]Value, 2*propMapSmall)
	for _, e := range m.small {
		m.big[e.name] = e.value
	}
	m.small = nil
	m.big[name] = v
}

func (m *propMap) del(name unistring.String) {
	if m.big != nil {
		delete(m.big, name)
		return
	}
	for i := range m.small {
		if m.small[i].name == name {
			last := len(m.small) - 1
			copy(m.small[i:], m.small[i+1:])
			m.small[last] = propEntry{}
			m.small = m.small[:last]
			return
		}
	}
}

func (m *propMap) len() int {
	if m.big != nil {
		return len(m.big)
	}
	return len(m.small)
}

// reset empties the map (goja's make(map…) in init).
func (m *propMap) reset() {
	m.small, m.big = nil, nil
}
