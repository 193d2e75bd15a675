package dev.baton;

/**
 * A transition that the state machine does not allow, such as {@code PAID → PENDING} or anything out of a terminal
 * state. Thrown before any SQL runs, so nothing is written.
 */
public final class IllegalTransitionException extends BatonException {
    private static final long serialVersionUID = 1L;
    private final String machine;
    private final String from;
    private final String to;

    /** Creates an exception naming the machine and both states. */
    public IllegalTransitionException(String machine, Enum<?> from, Enum<?> to, String reason) {
        super("illegal transition " + from + " -> " + to + " in state machine '" + machine + "': " + reason);
        this.machine = machine;
        this.from = String.valueOf(from);
        this.to = String.valueOf(to);
    }

    /** The state machine's name. */
    public String machine() {
        return machine;
    }

    /** The source state's name. */
    public String from() {
        return from;
    }

    /** The target state's name. */
    public String to() {
        return to;
    }
}
