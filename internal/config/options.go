package config

import (
	"log/slog"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
)

// PresetOptions are the code-mode preset's options as the codemode section
// sets them; unset keys leave the preset's and the runtime's defaults.
func (c *Config) PresetOptions(log *slog.Logger) codemode.Options {
	cm := c.CodeMode
	return codemode.Options{
		Engine: cm.Engine,
		Mode:   runtime.Mode(cm.Mode),
		Limits: runtime.Limits{
			Timeout:               cm.Timeout,
			MaxSubcalls:           cm.MaxSubcalls,
			MaxConcurrentSubcalls: cm.MaxConcurrentSubcalls,
			MaxLogBytes:           int(cm.MaxLogBytes),
			MaxResultBytes:        int(cm.MaxResultBytes),
			MaxCodeBytes:          int(cm.MaxCodeBytes),
			MaxNestingDepth:       cm.MaxNestingDepth,
			MemoryBytes:           cm.Memory,
		},
		Native:          cm.Native,
		CatalogBudget:   cm.CatalogBudget,
		MaxEnvironments: cm.MaxEnvironments,
		IdleTTL:         cm.IdleTTL,
		Logger:          log,
	}
}

// RegistryOptions are the tool registry's options as the codemode section
// sets them.
func (c *Config) RegistryOptions(log *slog.Logger) tools.Options {
	return tools.Options{Logger: log, MaxArgumentBytes: int(c.CodeMode.MaxArgumentBytes)}
}
