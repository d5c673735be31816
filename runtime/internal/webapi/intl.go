package webapi

func intlCall(arg string) (string, error) { return "", typeError("Intl: not yet") }
