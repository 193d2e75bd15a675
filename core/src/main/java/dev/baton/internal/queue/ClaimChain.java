package dev.baton.internal.queue;

import dev.baton.BatonInterceptor;
import dev.baton.ClaimedRow;
import java.util.List;

/**
 * One step of the interceptors around a claim: interceptor {@code index}, or the claim after the last.
 *
 * @param <S> the enum of states
 */
public final class ClaimChain<S extends Enum<S>> implements BatonInterceptor.ClaimCall<S> {
    private final QueueShape<S> shape;
    private final Claimer<S, ClaimedRow<S>> claimer;
    private final int batchSize;
    private final int index;
    private boolean proceeded;

    /** The step {@code index} of a claim of {@code batchSize} rows. */
    public ClaimChain(QueueShape<S> shape, Claimer<S, ClaimedRow<S>> claimer, int batchSize, int index) {
        this.shape = shape;
        this.claimer = claimer;
        this.batchSize = batchSize;
        this.index = index;
    }

    @Override
    public String queue() {
        return shape.name;
    }

    @Override
    public int batchSize() {
        return batchSize;
    }

    @Override
    public List<ClaimedRow<S>> proceed() {
        if (proceeded) {
            throw new IllegalStateException("an interceptor called proceed() twice for a claim in " + shape.name);
        }
        proceeded = true;
        List<BatonInterceptor> interceptors = shape.engine.interceptors();
        return index == interceptors.size()
                ? claimer.claim(batchSize)
                : interceptors.get(index).aroundClaim(new ClaimChain<>(shape, claimer, batchSize, index + 1));
    }
}
