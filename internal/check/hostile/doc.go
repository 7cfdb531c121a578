// Package hostile holds the malformed-request corpus test: thousands of
// signed requests with bad methods, paths, headers, lengths and bodies sent
// to all four services, none of which may answer 500, panic or hang. It has
// no code outside its test.
package hostile
