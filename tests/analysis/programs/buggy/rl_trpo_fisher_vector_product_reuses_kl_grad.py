"""TRPO policy step on a contextual bandit: natural-gradient direction by conjugate
gradient on Fisher-vector products, then a backtracking line search on the KL bound.

Report: https://github.com/tristandeleu/pytorch-maml-rl/pull/13 -- to speed up the
Hessian-vector product, the KL gradient (create_graph=True) was computed once instead
of once per conjugate-gradient iteration; the product's inner autograd.grad then needs
retain_graph=True, because every iteration differentiates the same graph again. Without
it the second iteration raises "Trying to backward through the graph a second time".
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical
from torch.nn.utils import parameters_to_vector, vector_to_parameters

OBS, ACTIONS, BATCH = 4, 3, 64


def conjugate_gradient(fvp, b, iters=6):
    x, r, p = torch.zeros_like(b), b.clone(), b.clone()
    rdotr = r @ r
    for _ in range(iters):
        ap = fvp(p)
        alpha = rdotr / (p @ ap)
        x, r = x + alpha * p, r - alpha * ap
        new_rdotr = r @ r
        p, rdotr = r + (new_rdotr / rdotr) * p, new_rdotr
    return x


def trpo_step(policy, obs, actions, advantages, max_kl=0.01, damping=0.1):
    params = list(policy.parameters())
    with torch.no_grad():
        old_logits = policy(obs)
    surrogate = (Categorical(logits=policy(obs)).log_prob(actions) * advantages).mean()
    grad = parameters_to_vector(torch.autograd.grad(surrogate, params))
    kl = torch.distributions.kl_divergence(Categorical(logits=old_logits), Categorical(logits=policy(obs))).mean()
    flat_grad_kl = parameters_to_vector(torch.autograd.grad(kl, params, create_graph=True))

    def fisher_vector_product(v):
        hv = torch.autograd.grad(flat_grad_kl @ v, params)  # error: [pre-loop-graph-backward]
        return parameters_to_vector(hv) + damping * v

    step_dir = conjugate_gradient(fisher_vector_product, grad)
    step = step_dir * torch.sqrt(2 * max_kl / (step_dir @ fisher_vector_product(step_dir)))
    old = parameters_to_vector(params).detach()
    for fraction in (1.0, 0.5, 0.25, 0.125):
        vector_to_parameters(old + fraction * step, params)
        with torch.no_grad():
            new_kl = torch.distributions.kl_divergence(Categorical(logits=old_logits), Categorical(logits=policy(obs))).mean()
        if new_kl <= max_kl:
            return fraction
    vector_to_parameters(old, params)
    return 0.0


def main(iterations=3):
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    for it in range(iterations):
        obs = torch.randn(BATCH, OBS)
        with torch.no_grad():
            actions = Categorical(logits=policy(obs)).sample()
        rewards = (actions == obs[:, :ACTIONS].argmax(-1)).float()
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
        print(it, rewards.mean().item(), trpo_step(policy, obs, actions, advantages))


if __name__ == "__main__":
    main()
