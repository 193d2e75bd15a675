package dev.baton;

/**
 * A reconciler's verdict that cannot settle an unknown send: only {@link Outcome#complete} (sent),
 * {@link Outcome#release()} (not sent), {@link Outcome#deadLetter} (give up) and {@link Outcome#unknown} or null
 * (cannot tell yet) are verdicts; anything else, such as a retry, would send again without knowing whether the sink
 * already has the row. A completion into one of the queue's own states (claimable, processing, sending, unknown, dead)
 * is refused too: a row the sink has must leave the queue. Thrown before any SQL; the row stays in the unknown state.
 */
public class IllegalVerdictException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    /** The row's id. */
    private final transient Object id;

    /**
     * Creates the exception for {@code verdict} on row {@code id} of queue {@code queue}.
     *
     * @param queue the queue's name
     * @param id the row's id
     * @param verdict the refused verdict
     */
    public IllegalVerdictException(String queue, Object id, Outcome<?> verdict) {
        super("a reconciler's verdict must be complete, release, deadLetter, unknown or null, was " + verdict
                + " for row " + id + " (queue '" + queue + "'): the row stays unknown");
        this.id = id;
    }

    /**
     * Creates the exception for {@code verdict} on row {@code id} of queue {@code queue}, refused for {@code why}.
     *
     * @param queue the queue's name
     * @param id the row's id
     * @param verdict the refused verdict
     * @param why why it cannot settle the row
     */
    public IllegalVerdictException(String queue, Object id, Outcome<?> verdict, String why) {
        super("the verdict " + verdict + " for row " + id + " (queue '" + queue + "') cannot settle it: " + why
                + "; the row stays unknown");
        this.id = id;
    }

    /**
     * The row's id.
     *
     * @return the id
     */
    public Object id() {
        return id;
    }
}
