package smb

// Message sequence numbers and credits (MS-SMB2 3.3.1.1, 3.3.1.2,
// 3.3.5.2.3, 3.3.5.2.5). A connection starts with the window { 0 }; each
// credit a response grants adds the next MessageId to it. A request
// consumes CreditCharge consecutive MessageIds (one when the connection is
// not multi-credit or the charge is 0), each inside the window and never
// used before; anything else ends the connection, as Windows does. CANCEL
// consumes none: it names the request it cancels.

// maxCredits bounds the MessageIds granted but not yet consumed, as
// smbd's "smb2 max credits" does (8192 by default); responses grant no
// more than that, so the window never wraps.
const maxCredits = 8192

// creditUnit is the payload one credit pays for (MS-SMB2 3.1.5.2).
const creditUnit = 65536

// seqWindow is a connection's CommandSequenceWindow: the MessageIds in
// [low, granted+1) (MessageId 0 comes with the connection, the others
// with the credits responses grant), less those consumed out of order
// (marked in used until low passes them).
type seqWindow struct {
	low, granted uint64
	used         [maxCredits / 64]uint64 // bit id%maxCredits: consumed
}

// high is the first MessageId not granted yet.
func (w *seqWindow) high() uint64 { return w.granted + 1 }

func (w *seqWindow) bit(id uint64) (word int, mask uint64) {
	i := id % maxCredits
	return int(i / 64), 1 << (i % 64)
}

// consume takes the n MessageIds from id on, reporting false when any of
// them is outside the window or already used (MS-SMB2 3.3.5.2.3).
func (w *seqWindow) consume(id uint64, n uint64) bool {
	if id < w.low || id >= w.high() || n > w.high()-id {
		return false
	}
	for m := id; m < id+n; m++ {
		if word, mask := w.bit(m); w.used[word]&mask != 0 {
			return false
		}
	}
	for m := id; m < id+n; m++ {
		word, mask := w.bit(m)
		w.used[word] |= mask
	}
	for w.low < w.high() {
		word, mask := w.bit(w.low)
		if w.used[word]&mask == 0 {
			break
		}
		w.used[word] &^= mask
		w.low++
	}
	return true
}

// grant extends the window by up to want MessageIds and returns how many
// it granted: never past maxCredits outstanding (MS-SMB2 3.3.1.1 lets the
// server limit the range).
func (w *seqWindow) grant(want uint64) uint16 {
	n := min(want, maxCredits-(w.high()-w.low))
	w.granted += n
	return uint16(n)
}

// charge is how many MessageIds (and credits) request h consumes.
func (c *conn) charge(h header) uint64 {
	if c.multiCredit && h.creditCharge > 1 {
		return uint64(h.creditCharge)
	}
	return 1
}

// credits is what the response to h grants: what the client asks for, at
// least one and at least what the request consumed (so a client that asks
// for nothing, as impacket does, keeps its balance through multi-credit
// reads and writes, as smbd grants), within the window's limit.
func (c *conn) credits(h header) uint16 {
	return c.seq.grant(max(uint64(h.credits), c.charge(h)))
}

// chargeCovers checks a multi-credit request's CreditCharge against the
// payload it sends or asks back (MS-SMB2 3.3.5.2.5): one credit per 64 KiB,
// and a charge of 0 only for at most 64 KiB.
func (c *conn) chargeCovers(h header, body []byte) bool {
	if !c.multiCredit {
		return true
	}
	size := uint64(payloadSize(h.command, body))
	if h.creditCharge == 0 {
		return size <= creditUnit
	}
	return (size+creditUnit-1)/creditUnit <= uint64(h.creditCharge)
}

// payloadSize is the larger of what a request carries and what it may get
// back, for the commands MS-SMB2 3.3.5.2.5 names; 0 for the others.
func payloadSize(cmd uint16, body []byte) uint32 {
	u32 := func(at int) uint32 {
		if len(body) < at+4 {
			return 0
		}
		return le.Uint32(body[at:])
	}
	switch cmd {
	case cmdRead, cmdWrite, cmdChangeNotify, cmdSetInfo:
		return u32(4) // Length, OutputBufferLength or BufferLength
	case cmdQueryDirectory:
		return u32(28)
	case cmdQueryInfo:
		return max(u32(4), u32(12))
	case cmdIoctl:
		// InputCount + OutputCount against MaxInputResponse +
		// MaxOutputResponse, each sum in 64 bits' worth of care.
		in := uint64(u32(28)) + uint64(u32(40))
		out := uint64(u32(32)) + uint64(u32(44))
		return uint32(min(max(in, out), 1<<32-1))
	}
	return 0
}

// inSequence consumes the MessageIds of request h, reporting false when
// the connection must end; CANCEL consumes none.
func (c *conn) inSequence(h header) bool {
	return h.command == cmdCancel || c.seq.consume(h.messageID, c.charge(h))
}
