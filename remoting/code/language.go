package code

// LanguageCode is the sender's language as carried in every remoting header.
// JSON headers carry the name, ROCKETMQ headers the ordinal (Java's LanguageCode enum order).
type LanguageCode uint8

// Java's LanguageCode enum, in declaration order.
const (
	Java LanguageCode = iota
	CPP
	DotNet
	Python
	Delphi
	Erlang
	Ruby
	Other
	HTTP
	Go
	PHP
	OMS
	Rust
	NodeJS
)

var languageNames = [...]string{"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS"}

// String returns the enum name Java writes in JSON headers.
func (l LanguageCode) String() string {
	if int(l) < len(languageNames) {
		return languageNames[l]
	}
	return "OTHER"
}

// ParseLanguage maps a JSON header name back to its code; unknown names are Other.
func ParseLanguage(name string) (LanguageCode, bool) {
	for i, n := range languageNames {
		if n == name {
			return LanguageCode(i), true
		}
	}
	return Other, false
}
