package dev.baton;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.internal.KeyText;
import org.junit.jupiter.api.Test;

class KeyTextTest {
    @Test
    void acceptsOrdinaryKeys() {
        for (String ok : new String[] {
            "k", "4f9c1d1e-8a3b-4c55-9d1e-1b2c3d4e5f60", "a b", "ключ", "🔑", "🔑-key-🔑", "x".repeat(255)
        }) {
            assertEquals(ok, KeyText.check("key", ok, 255), ok);
        }
    }

    @Test
    void refusesWhatDatabasesWouldCompareLooselyOrNotStore() {
        for (String bad : new String[] {
            "",
            " ",
            "\t",
            " k",
            "k ",
            "k\t",
            "\u00A0k",
            "k\u2003",
            "k\u0000",
            "k\u001F",
            "k\u007F",
            "\uD83D",
            "\uDD11k",
            "k\uD83D",
            "x".repeat(256)
        }) {
            assertThrows(IllegalKeyException.class, () -> KeyText.check("key", bad, 255), bad);
        }
        assertThrows(IllegalKeyException.class, () -> KeyText.check("key", "x".repeat(37), 36));
        assertThrows(NullPointerException.class, () -> KeyText.check("key", null, 255));
        IllegalKeyException e =
                assertThrows(IllegalKeyException.class, () -> KeyText.check("message id", "a\u0000", 9));
        assertEquals("message id", e.argument());
        assertTrue(e.getMessage().contains("\\u0000"), e.getMessage());
    }

    @Test
    void completedCopiesItsResponse() {
        byte[] stored = {1, 2, 3};
        BeginResult.Completed c = new BeginResult.Completed("s", "k", stored);
        stored[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, c.response());
        c.response()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, c.response());
        assertEquals(new BeginResult.Completed("s", "k", new byte[] {1, 2, 3}), c);
        assertNotEquals(new BeginResult.Completed("s", "k", new byte[] {1, 2}), c);
        assertEquals("Completed[scope=s, key=k, response=3 bytes]", c.toString());
    }
}
