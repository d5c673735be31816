package config

import (
	"bytes"
	"encoding/json"
	"sort"
)

// MarshalJSON writes c in the file shape [Parse] reads, so that
// Parse(json.Marshal(c)) yields c again. Durations are written as Go
// duration strings and sizes as numbers of bytes; zero fields are left out.
func (c *Config) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"mcpServers":{`)
	names := make([]string, 0, len(c.Servers))
	for name := range c.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteByte(':')
		s := c.Servers[name]
		b.Write(writeObject(serverFields, &s))
	}
	b.WriteByte('}')
	if !isZero(codeModeFields, &c.CodeMode) {
		b.WriteString(`,"codemode":`)
		b.Write(writeObject(codeModeFields, &c.CodeMode))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
