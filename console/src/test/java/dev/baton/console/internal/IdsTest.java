package dev.baton.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Encoded ids: bounded both ways (no text of a billion characters from twelve), typed, and round-tripping. */
class IdsTest {
    @Test
    void aDecimalWithAHugeExponentIsNoId() {
        // new BigDecimal accepts it, and its plain text has a billion digits: decoding refuses before that
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (String text : List.of("d1e999999999", "d1E+999999999", "d-1e999999999", "d1e-999999999", "d.5")) {
                assertThrows(IllegalArgumentException.class, () -> Ids.decode(text), text);
            }
        });
    }

    @Test
    void encodingIsBoundedToo() {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertNull(Ids.encode(new BigDecimal("1e999999999")));
            assertNull(Ids.encode(new BigDecimal("1e-999999999")));
            assertNull(Ids.encode("x".repeat(Ids.MAX)));
        });
    }

    @Test
    void integersAreBoundedByTheirType() {
        assertEquals(Long.MAX_VALUE, Ids.decode("l" + Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> Ids.decode("l9223372036854775808"));
        assertEquals(Integer.MIN_VALUE, Ids.decode("i" + Integer.MIN_VALUE));
        assertThrows(IllegalArgumentException.class, () -> Ids.decode("i2147483648"));
        for (String text : List.of("l", "l+1", "l 1", "l1 ", "l\uFF11", "l0x1", "i1.0", "n1e3", "u1", "q1", "")) {
            assertThrows(IllegalArgumentException.class, () -> Ids.decode(text), text);
        }
        assertThrows(IllegalArgumentException.class, () -> Ids.decode("s" + "x".repeat(Ids.MAX)));
    }

    @Test
    void everyTypeRoundTrips() {
        for (Object id : List.of(
                42L,
                -7,
                new BigInteger("18446744073709551615"),
                new BigDecimal("12.50"),
                UUID.randomUUID(),
                "<a\u202E id>")) {
            String text = Ids.encode(id);
            assertEquals(id, Ids.decode(text), text);
            assertEquals(text.charAt(0), Ids.tag(id));
        }
    }
}
