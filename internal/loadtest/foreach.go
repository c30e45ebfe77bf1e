package loadtest

import (
	"sync"
)

// ForEach calls fn(i) for i from 0 to n−1, concurrency calls at once (at least one), and returns
// the errors, in no order, once every call returned.
func ForEach(n, concurrency int, fn func(i int) error) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		next = make(chan int)
	)
	for range max(1, min(concurrency, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}
