package main

import (
	"context"
	"fmt"
)

func pending(ctx context.Context, args []string) error   { return fmt.Errorf("not yet") }
func sustained(ctx context.Context, args []string) error { return fmt.Errorf("not yet") }
