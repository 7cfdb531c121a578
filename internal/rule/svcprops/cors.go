package svcprops

import (
	"net/http"
	"strconv"
	"strings"
)

// CORS outcome of matching a request against the rules.

// Preflight answers an OPTIONS preflight request. It returns false when no
// rule allows it (the caller answers 403 CorsPreflightFailure).
func (p Properties) Preflight(h http.Header, origin, method string) (http.Header, bool) {
	requested := splitList(h.Get("Access-Control-Request-Headers"))
	for _, rule := range p.rules() {
		if !rule.allowsOrigin(origin) || !rule.allowsMethod(method) || !rule.allowsHeaders(requested) {
			continue
		}
		out := http.Header{}
		out.Set("Access-Control-Allow-Origin", rule.originValue(origin))
		out.Set("Access-Control-Allow-Methods", strings.ToUpper(method))
		if len(requested) > 0 {
			out.Set("Access-Control-Allow-Headers", strings.Join(requested, ","))
		}
		out.Set("Access-Control-Max-Age", strconv.Itoa(rule.MaxAgeInSeconds))
		out.Set("Access-Control-Allow-Credentials", "true")
		out.Set("Vary", "Origin")
		return out, true
	}
	return nil, false
}

// Actual returns the CORS headers of an actual (not preflight) request, nil
// when there are none. It follows the Vary table of "Cross-Origin Resource
// Sharing (CORS) support for the Azure Storage services":
//   - no rules: nothing;
//   - a matching rule that allows all origins: Access-Control-Allow-Origin
//     "*" and the exposed headers, without Vary, even when the request
//     carries no Origin;
//   - a rule matching the origin exactly: the origin, the exposed headers
//     and Vary: Origin;
//   - rules but no match: Vary: Origin alone.
//
// Vary is set only for GET and HEAD, whose answers user agents cache.
func (p Properties) Actual(origin, method string) http.Header {
	rules := p.rules()
	if len(rules) == 0 {
		return nil
	}
	out := http.Header{}
	cacheable := method == http.MethodGet || method == http.MethodHead
	for _, rule := range rules {
		wildcard := rule.allowsAllOrigins()
		if !rule.allowsMethod(method) || !(wildcard || (origin != "" && rule.allowsOrigin(origin))) {
			continue
		}
		if rule.ExposedHeaders != "" {
			out.Set("Access-Control-Expose-Headers", strings.Join(splitList(rule.ExposedHeaders), ","))
		}
		if wildcard {
			out.Set("Access-Control-Allow-Origin", "*")
			return out
		}
		out.Set("Access-Control-Allow-Origin", origin)
		out.Set("Access-Control-Allow-Credentials", "true")
		break
	}
	if cacheable {
		out.Set("Vary", "Origin")
	}
	return out
}

// ActualApplies reports whether a request may get CORS headers from Actual:
// one carrying an Origin, or a GET or HEAD (Vary and wildcard rules apply
// to those without one).
func ActualApplies(origin, method string) bool {
	return origin != "" || method == http.MethodGet || method == http.MethodHead
}

func (p Properties) rules() []CorsRule {
	if p.Cors == nil {
		return nil
	}
	return p.Cors.Rules
}

func (r CorsRule) allowsOrigin(origin string) bool {
	for _, o := range splitList(r.AllowedOrigins) {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// originValue is the Allow-Origin answer: "*" for a wildcard rule, else the
// origin itself.
func (r CorsRule) originValue(origin string) string {
	if r.allowsAllOrigins() {
		return "*"
	}
	return origin
}

// allowsAllOrigins reports whether the rule lists the wildcard origin.
func (r CorsRule) allowsAllOrigins() bool {
	for _, o := range splitList(r.AllowedOrigins) {
		if o == "*" {
			return true
		}
	}
	return false
}

func (r CorsRule) allowsMethod(method string) bool {
	for _, m := range splitList(r.AllowedMethods) {
		if strings.EqualFold(m, method) {
			return true
		}
	}
	return false
}

// allowsHeaders checks each requested header against the rule's list, whose
// entries are exact names, prefixes ending in "*", or "*" alone.
func (r CorsRule) allowsHeaders(requested []string) bool {
	allowed := splitList(r.AllowedHeaders)
	for _, h := range requested {
		ok := false
		for _, a := range allowed {
			if a == "*" || strings.EqualFold(a, h) ||
				(strings.HasSuffix(a, "*") && strings.HasPrefix(strings.ToLower(h), strings.ToLower(strings.TrimSuffix(a, "*")))) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
