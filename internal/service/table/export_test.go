package table

// QueryCacheHits is how many times queries were answered from a cached
// partition, so black-box tests can tell a warm cache from a cold one.
func (s *Service) QueryCacheHits() int64 { return s.parts.hits.Load() }

// SetSmallPartitions lowers the partition size from which partitions are
// tracked and cached partitions get property indexes, so tests exercise
// both on small tables. Call it before the service serves requests.
func (s *Service) SetSmallPartitions(n int) { s.parts.minIndexRows, s.parts.minTrackRows = n, n }
