import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../../../src/shared/strategies/preemptive/breaker';

describe('preemptive: circuit breaker (the Conversation Compaction article: trip at 3 consecutive failures, 5-turn cool-down)', () => {
  it('trips at the third consecutive failure, stays open for the cool-down, resets at turn trip + 5', () => {
    const b = new CircuitBreaker();
    expect(b.state).toEqual({ turn: 0, consecutiveFailures: 0, trippedAtTurn: null });
    for (const turn of [1, 2]) {
      expect(b.beginTurn()).toBe(false);
      expect(b.recordFailure()).toBe(false);
      expect(b.state).toEqual({ turn, consecutiveFailures: turn, trippedAtTurn: null });
      expect(b.open).toBe(false);
    }
    b.beginTurn();
    expect(b.recordFailure()).toBe(true);
    expect(b.state).toEqual({ turn: 3, consecutiveFailures: 3, trippedAtTurn: 3 });
    expect(b.describe()).toBe('circuit breaker open since turn 3 (resets at turn 8)');
    for (const turn of [4, 5, 6, 7]) {
      expect(b.beginTurn()).toBe(false);
      expect(b.open).toBe(true);
      expect(b.state.turn).toBe(turn);
    }
    expect(b.beginTurn()).toBe(true);
    expect(b.state).toEqual({ turn: 8, consecutiveFailures: 0, trippedAtTurn: null });
    expect(b.open).toBe(false);
  });

  it('a success in between resets the count: fail, fail, succeed, fail leaves it closed at 1', () => {
    const b = new CircuitBreaker();
    b.beginTurn();
    b.recordFailure();
    b.beginTurn();
    b.recordFailure();
    b.beginTurn();
    b.recordSuccess();
    b.beginTurn();
    expect(b.recordFailure()).toBe(false);
    expect(b.state).toEqual({ turn: 4, consecutiveFailures: 1, trippedAtTurn: null });
    expect(b.describe()).toBe('circuit breaker closed (1 of 3 consecutive failures)');
  });

  it('resumes from a carried state and honours custom limits', () => {
    const b = new CircuitBreaker(1, 2, { turn: 10, consecutiveFailures: 0, trippedAtTurn: null });
    b.beginTurn();
    expect(b.recordFailure()).toBe(true);
    expect(b.state.trippedAtTurn).toBe(11);
    expect(b.beginTurn()).toBe(false);
    expect(b.beginTurn()).toBe(true);
    expect(b.state).toEqual({ turn: 13, consecutiveFailures: 0, trippedAtTurn: null });
  });
});
