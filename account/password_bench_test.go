package account

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPasswordHash measures one argon2id hash with PasswordHashing (what a sign-up, a
// sign-in and a password typed again each cost), and the peak heap of 32 verifications asked at
// once: hashSlots bounds how many run together, so the peak is a few times 19 MiB, not 32 times.
func BenchmarkPasswordHash(b *testing.B) {
	ctx := context.Background()
	stored, err := HashPassword(ctx, "a long enough passphrase")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			if ok, err := VerifyPassword(ctx, stored, "a long enough passphrase"); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/hash")
	})
	b.Run("32-at-once", func(b *testing.B) {
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
				}
			}
		}()
		start := time.Now()
		for b.Loop() {
			done := make(chan struct{}, 32)
			for range 32 {
				go func() {
					_, _ = VerifyPassword(ctx, stored, "a long enough passphrase")
					done <- struct{}{}
				}()
			}
			for range 32 {
				<-done
			}
		}
		close(stop)
		elapsed := time.Since(start)
		b.ReportMetric(float64(32*b.N)/elapsed.Seconds(), "hashes/s")
		b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak-heap")
		b.ReportMetric(float64(peak.Load())/float64(PasswordHashing.Memory*1024), "x-one-hash-memory")
	})
}
