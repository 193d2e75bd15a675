package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Typed reads of ids and values: whatever integral type a driver returned, a handler reads it as the type it wants,
 * without a cast and without loss; anything that would lose information is refused.
 */
class TypedReadTest {
    private static ClaimedRow<Outbox.Status> row(Object id, Object value) {
        Map<String, Object> values = new HashMap<>();
        values.put("v", value);
        return new ClaimedRow<>("q", id, 7L, 1, values);
    }

    @Test
    void integralIdsReadAsAnyIntegralTypeTheyFitIn() {
        for (Object id :
                new Object[] {42, 42L, (short) 42, new BigDecimal("42"), new BigDecimal("42.00"), BigInteger.valueOf(42)
                }) {
            ClaimedRow<Outbox.Status> r = row(id, null);
            assertEquals(42L, r.longId(), id.getClass().getName());
            assertEquals(Integer.valueOf(42), r.id(Integer.class));
            assertEquals(Long.valueOf(42), r.id(long.class));
            assertEquals(BigInteger.valueOf(42), r.id(BigInteger.class));
            assertEquals(0, new BigDecimal(42).compareTo(r.id(BigDecimal.class)));
        }
    }

    @Test
    void aLossyReadIsRefused() {
        assertThrows(ClassCastException.class, () -> row(Long.MAX_VALUE, null).id(Integer.class));
        assertThrows(
                ClassCastException.class, () -> row(new BigDecimal("4.5"), null).longId());
        assertThrows(ClassCastException.class, () -> row(new BigInteger("99999999999999999999"), null)
                .longId());
        assertThrows(ClassCastException.class, () -> row("42", null).longId(), "text is not a number");
        assertThrows(ClassCastException.class, () -> row(42L, null).id(String.class));
        assertThrows(ClassCastException.class, () -> row(42L, 1.5d).get("v", Long.class));
        assertThrows(ClassCastException.class, () -> row("not-a-uuid", null).id(UUID.class));
    }

    /** Only the canonical 36-character form is a UUID; the JDK's parser is lenient. */
    @Test
    void aUuidIsReadOnlyFromItsCanonicalForm() {
        for (String lenient : new String[] {
            "123e4567-e89b-12d3-a456-42661417400", // a digit short: the JDK reads ...-042661417400
            "1-2-3-4-5",
            " 123e4567-e89b-12d3-a456-426614174000",
            "123e4567-e89b-12d3-a456-426614174000 ",
            "123e4567-e89b-12d3-a456-0426614174000"
        }) {
            assertThrows(ClassCastException.class, () -> row(lenient, null).id(UUID.class), lenient);
            assertThrows(ClassCastException.class, () -> row(1, lenient).get("v", UUID.class), lenient);
        }
        assertEquals(
                UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
                row("123E4567-E89B-12D3-A456-426614174000", null).id(UUID.class));
    }

    @Test
    void valuesReadTypedAndNullStaysNull() {
        UUID u = UUID.randomUUID();
        assertEquals(u, row(u.toString().toUpperCase(), null).id(UUID.class), "a UUID stored as text");
        assertEquals(u.toString(), row(u, null).id(String.class));
        assertEquals("x", row(1, "x").get("v", String.class));
        assertEquals(Long.valueOf(5), row(1, 5).get("v", Long.class));
        assertNull(row(1, null).get("v", Long.class));
        assertThrows(IllegalArgumentException.class, () -> row(1, null).get("other", String.class));
    }

    @Test
    void resultsReadTheirIdTyped() {
        assertEquals(3L, new TransitionResult.NotFound<Outbox.Status>(3).longId());
        assertEquals(Integer.valueOf(3), new LeaseResult.LeaseLost<Outbox.Status>(3L).id(Integer.class));
        DeadRow dead = new DeadRow(new BigDecimal(9), 2, "why", Map.of("v", 10));
        assertEquals(9L, dead.longId());
        assertEquals(Long.valueOf(10), dead.get("v", Long.class));
    }
}
