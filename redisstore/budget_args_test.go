package redisstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A window with a fraction of a microsecond rounds up, so a call never
// leaves its window early; the longest windows are refused, not wrapped.
func TestWindowMicros(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name   string
		window time.Duration
		want   int64 // -1: refused
	}{
		{"whole", time.Hour, 3_600_000_000},
		{"a nanosecond more rounds up", time.Hour + time.Nanosecond, 3_600_000_001},
		{"a nanosecond", time.Nanosecond, 1},
		{"2^53 µs", maxMicros * time.Microsecond, maxMicros},
		{"a nanosecond past 2^53 µs", maxMicros*time.Microsecond + time.Nanosecond, -1},
		{"longest", 1<<63 - 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := windowMicros(now, tt.window, 4)
			if tt.want < 0 {
				require.ErrorIs(t, err, errArgs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A store from NewBudgetStore reads TIME alone: no shift.
func TestNewBudgetStoreHasNoShift(t *testing.T) {
	t.Parallel()
	s := NewBudgetStore(nil)
	assert.Nil(t, s.shift)
	assert.Zero(t, s.shiftMicros())
}
