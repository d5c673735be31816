package config

import (
	"log/slog"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
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
		Governor:         runtime.NewGovernor(cm.MaxTotalMemoryBytes),
		Native:           cm.Native,
		CatalogBudget:    cm.CatalogBudget,
		MaxEnvironments:  cm.MaxEnvironments,
		IdleTTL:          cm.IdleTTL,
		MaxAbandonedRuns: cm.MaxAbandonedRuns,
		TimeZone:         cm.TimeZone,
		Logger:           log,
	}
}

// RegistryOptions are the tool registry's options as the codemode section
// sets them.
func (c *Config) RegistryOptions(log *slog.Logger) tools.Options {
	return tools.Options{Logger: log, MaxArgumentBytes: int(c.CodeMode.MaxArgumentBytes)}
}

// PolicyOptions are the policy's options as the section sets them: the
// rules, the approval timeout and the redaction rules of the prompt.
func (c *Config) PolicyOptions(log *slog.Logger) policy.Options {
	cm := c.CodeMode
	return policy.Options{Spec: cm.Policy, ApprovalTimeout: cm.ApprovalTimeout, Redact: cm.RedactRules(), Logger: log}
}

// AuditOptions are the audit trail's options; ok is false when the section
// configures none.
func (c *Config) AuditOptions(log *slog.Logger) (opts audit.Options, ok bool) {
	cm := c.CodeMode
	if cm.Audit.Path == "" {
		return audit.Options{}, false
	}
	return audit.Options{Config: cm.Audit, Redact: cm.RedactRules(), Logger: log}, true
}
