package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.internal.values.Identifiers;
import org.junit.jupiter.api.Test;

class IdentifierTest {
    @Test
    void acceptsPlainNames() {
        assertEquals("orders", Identifiers.check("orders"));
        assertEquals("_x1", Identifiers.check("_x1"));
        assertEquals(2, Identifiers.splitTable("app.orders").length);
    }

    @Test
    void refusesEverythingElse() {
        for (String bad : new String[] {
            "", " a", "a b", "1a", "a-b", "a;b", "a\"b", "a`b", "a]b", "a'b", "ｏrders", "é", "a\nb", "x".repeat(129)
        }) {
            assertThrows(InvalidIdentifierException.class, () -> Identifiers.check(bad), bad);
        }
        assertThrows(InvalidIdentifierException.class, () -> Identifiers.check(null));
        assertThrows(InvalidIdentifierException.class, () -> Identifiers.splitTable("a.b.c"));
        assertThrows(InvalidIdentifierException.class, () -> Identifiers.splitTable(".b"));
        assertThrows(InvalidIdentifierException.class, () -> Condition.isNull("a;b"));
    }
}
