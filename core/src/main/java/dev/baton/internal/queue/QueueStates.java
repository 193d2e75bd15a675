package dev.baton.internal.queue;

import dev.baton.StateMachine;

/**
 * The states a claim queue moves its rows through, without the send protocol's ({@link SendProtocol}).
 *
 * @param machine the machine of the state column
 * @param claimable the state a claim takes rows from
 * @param processing the state a claim holds rows in
 * @param dead the state of a row that always failed
 * @param <S> the enum of states
 */
public record QueueStates<S extends Enum<S>>(StateMachine<S> machine, S claimable, S processing, S dead) {}
