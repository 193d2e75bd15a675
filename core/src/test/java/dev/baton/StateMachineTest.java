package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StateMachineTest {
    enum Pay {
        PENDING,
        PAID,
        FAILED
    }

    enum Coded {
        A(1),
        B(2),
        C(3);

        final int code;

        Coded(int code) {
            this.code = code;
        }
    }

    @Test
    void integerCodesMatchAnyIntegralNumber() {
        StateMachine<Coded> m = StateMachine.of(Coded.class)
                .storedAs(c -> c.code)
                .allow(Coded.A, Coded.B)
                .allow(Coded.B, Coded.C)
                .terminal(Coded.C)
                .build();
        assertEquals(StateMachine.CodeKind.INTEGER, m.codeKind());
        assertEquals(Optional.of(Coded.B), m.fromCode(2));
        assertEquals(Optional.of(Coded.B), m.fromCode(2L));
        assertEquals(Optional.of(Coded.B), m.fromCode((short) 2));
        assertEquals(Optional.of(Coded.B), m.fromCode(new java.math.BigDecimal("2")));
        assertEquals(Optional.empty(), m.fromCode(new java.math.BigDecimal("2.5")));
        assertEquals(Optional.empty(), m.fromCode("2"));
        assertEquals(Optional.empty(), m.fromCode(7));
        assertEquals(Optional.empty(), m.fromCode(null));
        assertEquals(EnumSet.of(Coded.A), m.initialStates());
    }

    @Test
    void stringCodesAreExact() {
        StateMachine<Pay> m = payments();
        assertEquals(Optional.of(Pay.PAID), m.fromCode("PAID"));
        assertEquals(Optional.empty(), m.fromCode("PAID "));
        assertEquals(Optional.empty(), m.fromCode("paid"));
        assertEquals(Optional.empty(), m.fromCode(1));
    }

    @Test
    void transitionsAndSources() {
        StateMachine<Pay> m = payments();
        assertTrue(m.canTransition(Pay.PENDING, Pay.PAID));
        assertFalse(m.canTransition(Pay.PAID, Pay.PENDING));
        assertEquals(EnumSet.of(Pay.PENDING), m.sourcesOf(Pay.FAILED));
        assertTrue(m.isTerminal(Pay.PAID));
        IllegalTransitionException e =
                assertThrows(IllegalTransitionException.class, () -> m.checkTransition(Pay.PAID, Pay.FAILED));
        assertTrue(e.getMessage().contains("PAID is terminal"), e.getMessage());
    }

    @Test
    void validatesItself() {
        assertThrows(IllegalTransitionException.class, () -> StateMachine.of(Pay.class)
                .allow(Pay.PENDING, Pay.PAID, Pay.FAILED)
                .allow(Pay.PAID, Pay.PENDING)
                .terminal(Pay.PAID, Pay.FAILED)
                .build());
        assertThrows(IllegalTransitionException.class, () -> StateMachine.of(Pay.class)
                .allow(Pay.PENDING, Pay.PENDING, Pay.PAID, Pay.FAILED)
                .terminal(Pay.PAID, Pay.FAILED)
                .build());
        ConfigurationException noWayOut = assertThrows(ConfigurationException.class, () -> StateMachine.of(Pay.class)
                .allow(Pay.PENDING, Pay.PAID, Pay.FAILED)
                .terminal(Pay.PAID)
                .build());
        assertTrue(noWayOut.getMessage().contains("FAILED"), noWayOut.getMessage());
        ConfigurationException unreachable = assertThrows(ConfigurationException.class, () -> StateMachine.of(Pay.class)
                .allow(Pay.PENDING, Pay.PAID)
                .terminal(Pay.PAID, Pay.FAILED)
                .initial(Pay.PENDING)
                .build());
        assertTrue(unreachable.getMessage().contains("FAILED"), unreachable.getMessage());
        assertThrows(ConfigurationException.class, () -> StateMachine.of(Coded.class)
                .storedAs(c -> c == Coded.C ? 1 : c.code)
                .allow(Coded.A, Coded.B)
                .allow(Coded.B, Coded.C)
                .terminal(Coded.C)
                .build());
        assertThrows(ConfigurationException.class, () -> StateMachine.of(Coded.class)
                .storedAs(c -> c == Coded.C ? "c" : c.code)
                .allow(Coded.A, Coded.B)
                .allow(Coded.B, Coded.C)
                .terminal(Coded.C)
                .build());
        assertThrows(ConfigurationException.class, () -> StateMachine.of(Coded.class)
                .storedAs(c -> c == Coded.C ? null : c.code)
                .allow(Coded.A, Coded.B)
                .allow(Coded.B, Coded.C)
                .terminal(Coded.C)
                .build());
        assertThrows(ConfigurationException.class, () -> StateMachine.of(Coded.class)
                .storedAs(c -> 1.5)
                .allow(Coded.A, Coded.B)
                .allow(Coded.B, Coded.C)
                .terminal(Coded.C)
                .build());
    }

    @Test
    void stringCodesThatCouldEscapeAnSqlLiteralAreRefused() {
        for (String bad : new String[] {"PAID'", "a\\b", "x\"y", "tab\there", "", "x".repeat(65)}) {
            assertThrows(
                    ConfigurationException.class,
                    () -> StateMachine.of(Pay.class)
                            .storedAs(p -> p == Pay.PAID ? bad : p.name())
                            .allow(Pay.PENDING, Pay.PAID, Pay.FAILED)
                            .terminal(Pay.PAID, Pay.FAILED)
                            .build(),
                    bad);
        }
        StateMachine.of(Pay.class)
                .storedAs(p -> p.name().toLowerCase(java.util.Locale.ROOT) + "-状态")
                .allow(Pay.PENDING, Pay.PAID, Pay.FAILED)
                .terminal(Pay.PAID, Pay.FAILED)
                .build();
    }

    @Test
    void rendersMermaid() {
        assertEquals(
                "stateDiagram-v2\n"
                        + "    [*] --> PENDING\n"
                        + "    PENDING --> PAID\n"
                        + "    PENDING --> FAILED\n"
                        + "    PAID --> [*]\n"
                        + "    FAILED --> [*]\n",
                payments().toMermaid());
    }

    private static StateMachine<Pay> payments() {
        return StateMachine.of(Pay.class)
                .allow(Pay.PENDING, Pay.PAID, Pay.FAILED)
                .terminal(Pay.PAID, Pay.FAILED)
                .build();
    }
}
