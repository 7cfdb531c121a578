package table

// QueryCacheHits is how many times queries were answered from a cached
// partition, so black-box tests can tell a warm cache from a cold one.
func (s *Service) QueryCacheHits() int64 { return s.parts.hits.Load() }

// SetMinIndexRows lowers the partition size from which cached partitions
// get property indexes, so tests exercise them on small tables. Call it
// before the service serves requests.
func (s *Service) SetMinIndexRows(n int) { s.parts.minIndexRows = n }
