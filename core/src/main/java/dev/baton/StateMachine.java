package dev.baton;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A finite state machine over an enum: each state has a stored code (an integer or a string, the same kind for all
 * states), the allowed transitions, and the terminal states. Immutable and thread-safe.
 *
 * <pre>{@code
 * StateMachine<Payment> payment = StateMachine.of(Payment.class)
 *     .storedAs(Payment::code)                       // int codes; default: the enum constant's name
 *     .allow(Payment.PENDING, Payment.PAID, Payment.FAILED, Payment.EXPIRED)
 *     .terminal(Payment.PAID, Payment.FAILED, Payment.EXPIRED)
 *     .build();
 * }</pre>
 *
 * <p>{@link Builder#build()} validates the machine: codes are non-null, unique and of one kind; no transition leaves a
 * terminal state or loops on itself; every non-terminal state has a way out; every state is reachable from an
 * initial state (the declared ones, or else those no transition enters).
 *
 * @param <S> the enum of states
 */
public final class StateMachine<S extends Enum<S>> {

    /** How codes are stored in the state column. */
    public enum CodeKind {
        /** An integer column (codes are {@code Integer}, {@code Long}, {@code Short} or {@code Byte}). */
        INTEGER,
        /** A character column. */
        STRING
    }

    private final Class<S> type;
    private final String name;
    private final CodeKind codeKind;
    private final Map<S, Object> codes;
    private final Map<Object, S> byCode;
    private final Map<S, Set<S>> targets;
    private final Map<S, Set<S>> sources;
    private final Set<S> terminal;
    private final Set<S> initial;

    private StateMachine(Builder<S> b, CodeKind codeKind, Map<S, Object> codes, Set<S> initial) {
        this.type = b.type;
        this.name = b.name;
        this.codeKind = codeKind;
        this.codes = Collections.unmodifiableMap(codes);
        Map<Object, S> reverse = new HashMap<>();
        codes.forEach((s, c) -> reverse.put(c, s));
        this.byCode = Collections.unmodifiableMap(reverse);
        Map<S, Set<S>> t = new EnumMap<>(type);
        Map<S, Set<S>> s = new EnumMap<>(type);
        for (S state : type.getEnumConstants()) {
            t.put(state, Collections.unmodifiableSet(EnumSet.copyOf(b.targets.getOrDefault(state, none(type)))));
            s.put(state, EnumSet.noneOf(type));
        }
        b.targets.forEach((from, tos) -> tos.forEach(to -> s.get(to).add(from)));
        s.replaceAll((k, v) -> Collections.unmodifiableSet(v));
        this.targets = Collections.unmodifiableMap(t);
        this.sources = Collections.unmodifiableMap(s);
        this.terminal = Collections.unmodifiableSet(EnumSet.copyOf(b.terminal));
        this.initial = Collections.unmodifiableSet(initial);
    }

    /** Starts a machine over the given enum; every constant of the enum is a state. */
    public static <S extends Enum<S>> Builder<S> of(Class<S> type) {
        return new Builder<>(Objects.requireNonNull(type, "type"));
    }

    /** The machine's name, used in messages (defaults to the enum's simple name). */
    public String name() {
        return name;
    }

    /** The enum class. */
    public Class<S> type() {
        return type;
    }

    /** Whether codes are integers or strings. */
    public CodeKind codeKind() {
        return codeKind;
    }

    /** All states in declaration order. */
    public List<S> states() {
        return List.of(type.getEnumConstants());
    }

    /** The stored code of a state ({@code Long} for integer machines, {@code String} otherwise). */
    public Object code(S state) {
        return codes.get(Objects.requireNonNull(state, "state"));
    }

    /**
     * The state whose stored code equals a raw value read from the database, or empty. Integer codes match any
     * integral {@link Number} (and {@code BigDecimal} without fraction); string codes match exactly (no trimming, no
     * case folding: {@code 'paid '} is not {@code 'paid'}).
     */
    public Optional<S> fromCode(@Nullable Object raw) {
        if (raw == null) {
            return Optional.empty();
        }
        if (codeKind == CodeKind.INTEGER) {
            if (raw instanceof java.math.BigDecimal d) {
                try {
                    return Optional.ofNullable(byCode.get(d.longValueExact()));
                } catch (ArithmeticException e) {
                    return Optional.empty();
                }
            }
            if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
                return Optional.ofNullable(byCode.get(((Number) raw).longValue()));
            }
            if (raw instanceof java.math.BigInteger bi && bi.bitLength() < 64) {
                return Optional.ofNullable(byCode.get(bi.longValue()));
            }
            return Optional.empty();
        }
        return raw instanceof String str ? Optional.ofNullable(byCode.get(str)) : Optional.empty();
    }

    /** True when the machine allows {@code from → to}. */
    public boolean canTransition(S from, S to) {
        return targets.get(Objects.requireNonNull(from, "from")).contains(Objects.requireNonNull(to, "to"));
    }

    /** The states that may move to {@code to}. */
    public Set<S> sourcesOf(S to) {
        return sources.get(Objects.requireNonNull(to, "to"));
    }

    /** The states {@code from} may move to. */
    public Set<S> targetsOf(S from) {
        return targets.get(Objects.requireNonNull(from, "from"));
    }

    /** True for a terminal state. */
    public boolean isTerminal(S state) {
        return terminal.contains(Objects.requireNonNull(state, "state"));
    }

    /** The terminal states. */
    public Set<S> terminalStates() {
        return terminal;
    }

    /** The initial states: the declared ones, or else those no transition enters. */
    public Set<S> initialStates() {
        return initial;
    }

    /**
     * Checks that {@code from → to} is allowed, throwing {@link IllegalTransitionException} with the reason if not.
     */
    public void checkTransition(S from, S to) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (canTransition(from, to)) {
            return;
        }
        String reason = isTerminal(from)
                ? from + " is terminal"
                : from == to
                        ? "a state cannot move to itself"
                        : "allowed from " + from + ": " + (targetsOf(from).isEmpty() ? "none" : targetsOf(from));
        throw new IllegalTransitionException(name, from, to, reason);
    }

    /** Renders the machine as a Mermaid {@code stateDiagram-v2}, for documentation. */
    public String toMermaid() {
        StringBuilder sb = new StringBuilder("stateDiagram-v2\n");
        for (S s : initial) {
            sb.append("    [*] --> ").append(s.name()).append('\n');
        }
        for (S from : type.getEnumConstants()) {
            for (S to : targets.get(from)) {
                sb.append("    ")
                        .append(from.name())
                        .append(" --> ")
                        .append(to.name())
                        .append('\n');
            }
        }
        for (S s : terminal) {
            sb.append("    ").append(s.name()).append(" --> [*]\n");
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "StateMachine[" + name + ", " + codes + "]";
    }

    private static <S extends Enum<S>> Set<S> none(Class<S> type) {
        return EnumSet.noneOf(type);
    }

    /**
     * Collects the definition of a {@link StateMachine}. Not thread-safe; {@link #build()} returns an immutable copy.
     *
     * @param <S> the enum of states
     */
    public static final class Builder<S extends Enum<S>> {
        private final Class<S> type;
        private String name;
        private Function<S, ?> codeOf = Enum::name;
        private final Map<S, Set<S>> targets;
        private final Set<S> terminal;
        private final Set<S> initial;

        private Builder(Class<S> type) {
            this.type = type;
            this.name = type.getSimpleName();
            this.targets = new EnumMap<>(type);
            this.terminal = EnumSet.noneOf(type);
            this.initial = EnumSet.noneOf(type);
        }

        /** Names the machine for messages (default: the enum's simple name). */
        public Builder<S> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * How each state is stored: a function returning an integer ({@code Integer}, {@code Long}, {@code Short},
         * {@code Byte}) or a {@code String}, the same kind for every state. Default: the constant's name.
         */
        public Builder<S> storedAs(Function<S, ?> codeOf) {
            this.codeOf = Objects.requireNonNull(codeOf, "codeOf");
            return this;
        }

        /** Allows {@code from} to move to each of {@code to}. */
        @SafeVarargs
        public final Builder<S> allow(S from, S... to) {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (to.length == 0) {
                throw new ConfigurationException("allow(" + from + ") names no target state (machine '" + name + "')");
            }
            Set<S> set = targets.computeIfAbsent(from, k -> EnumSet.noneOf(type));
            for (S t : to) {
                set.add(Objects.requireNonNull(t, "target state"));
            }
            return this;
        }

        /** Declares terminal states: nothing leaves them. */
        @SafeVarargs
        public final Builder<S> terminal(S... states) {
            for (S s : states) {
                terminal.add(Objects.requireNonNull(s, "terminal state"));
            }
            return this;
        }

        /** Declares initial states (default: the states no transition enters). */
        @SafeVarargs
        public final Builder<S> initial(S... states) {
            for (S s : states) {
                initial.add(Objects.requireNonNull(s, "initial state"));
            }
            return this;
        }

        /**
         * Validates and returns the machine.
         *
         * @throws ConfigurationException naming the first problem found
         * @throws IllegalTransitionException for a transition out of a terminal state or onto itself
         */
        public StateMachine<S> build() {
            Map<S, Object> codes = new EnumMap<>(type);
            CodeKind kind = null;
            Map<Object, S> seen = new HashMap<>();
            for (S s : type.getEnumConstants()) {
                Object raw = codeOf.apply(s);
                if (raw == null) {
                    throw new ConfigurationException("state " + s + " has a null stored code (machine '" + name + "')");
                }
                CodeKind k;
                Object code;
                if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
                    k = CodeKind.INTEGER;
                    code = ((Number) raw).longValue();
                } else if (raw instanceof String str) {
                    if (str.isEmpty() || str.length() > 64) {
                        throw new ConfigurationException(
                                "state " + s + " needs a stored code of 1..64 characters, was '" + str + "' (machine '"
                                        + name + "')");
                    }
                    try {
                        dev.baton.spi.SqlVocabulary.checkedTextCode(str);
                    } catch (IllegalArgumentException e) {
                        // codes are rendered into SQL as literals (see Dialect.codeLiteral): nothing may escape them
                        throw new ConfigurationException(
                                "state " + s + ": " + e.getMessage() + " (machine '" + name + "')");
                    }
                    k = CodeKind.STRING;
                    code = str;
                } else {
                    throw new ConfigurationException("state " + s + " has a stored code of type "
                            + raw.getClass().getName() + "; use an integer or a String (machine '" + name + "')");
                }
                if (kind != null && kind != k) {
                    throw new ConfigurationException(
                            "stored codes mix integers and strings (state " + s + ", machine '" + name + "')");
                }
                kind = k;
                S other = seen.put(code, s);
                if (other != null) {
                    throw new ConfigurationException("states " + other + " and " + s + " share the stored code " + code
                            + " (machine '" + name + "')");
                }
                codes.put(s, code);
            }
            if (kind == null) {
                throw new ConfigurationException("enum " + type.getName() + " has no constants");
            }
            for (Map.Entry<S, Set<S>> e : targets.entrySet()) {
                for (S to : e.getValue()) {
                    if (terminal.contains(e.getKey())) {
                        throw new IllegalTransitionException(
                                name, e.getKey(), to, e.getKey() + " is declared terminal, nothing may leave it");
                    }
                    if (e.getKey() == to) {
                        throw new IllegalTransitionException(name, to, to, "a state cannot move to itself");
                    }
                }
            }
            Set<S> entered = EnumSet.noneOf(type);
            targets.values().forEach(entered::addAll);
            Set<S> starts = EnumSet.noneOf(type);
            if (initial.isEmpty()) {
                for (S s : type.getEnumConstants()) {
                    if (!entered.contains(s)) {
                        starts.add(s);
                    }
                }
            } else {
                starts.addAll(initial);
            }
            for (S s : type.getEnumConstants()) {
                boolean leaves = !targets.getOrDefault(s, none(type)).isEmpty();
                if (!leaves && !terminal.contains(s)) {
                    throw new ConfigurationException("state " + s + " has no allowed transition out of it; declare it"
                            + " terminal or allow a way out (machine '" + name + "')");
                }
            }
            Set<S> reachable = EnumSet.copyOf(starts.isEmpty() ? none(type) : starts);
            Deque<S> todo = new ArrayDeque<>(reachable);
            while (!todo.isEmpty()) {
                for (S next : targets.getOrDefault(todo.pop(), none(type))) {
                    if (reachable.add(next)) {
                        todo.push(next);
                    }
                }
            }
            List<S> unreachable = new ArrayList<>();
            for (S s : type.getEnumConstants()) {
                if (!reachable.contains(s)) {
                    unreachable.add(s);
                }
            }
            if (!unreachable.isEmpty()) {
                throw new ConfigurationException("states " + unreachable + " cannot be reached from the initial states "
                        + starts + " (machine '" + name + "')"
                        + (initial.isEmpty()
                                ? "; every state is entered by some transition, so declare initial(...)"
                                : ""));
            }
            return new StateMachine<>(this, kind, codes, starts);
        }
    }
}
