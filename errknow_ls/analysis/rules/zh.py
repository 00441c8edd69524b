"""The rules in Chinese: each rule's documentation, and the catalog of what its findings say
(messages, related places, fix titles), English template -> Chinese."""

# ruff: noqa: RUF001

from __future__ import annotations

from errknow_ls.core.translation import Catalog

DOCUMENTATION = {
    "EK001": """## double-backward (EK001)

### 它检查什么
对一个张量执行反向传播（`t.backward()`、`torch.autograd.backward(t)`、`torch.autograd.grad(t, ...)`，
或 `accelerator.backward(t)` 之类的包装），而更早的一次反向传播已经走过同一个计算图、且没有保留
计算图（`retain_graph=True`）。

### 为什么有问题？
反向传播会释放计算图为求梯度而保存的张量。再次走过同一个计算图会在运行时抛出
`RuntimeError: Trying to backward through the graph a second time`，可能是在训练几个小时之后。

### 示例
```python
loss = criterion(model(x), y)
grads = torch.autograd.grad(loss, model.parameters())
loss.backward()
```

### 应改为
```python
loss = criterion(model(x), y)
grads = torch.autograd.grad(loss, model.parameters(), retain_graph=True)
loss.backward()
```

### 修复的安全性
当较早的调用是 `torch.autograd.grad`（它只读取梯度）时，给它加上 `retain_graph=True` 是安全的；
在 `.backward()` 之后则不安全，因为梯度会累加两次，这很少是本意；除非在第一次的每次运行之后、
第二次反向传播的紧前面，运行了一个清空该计算图读取的每个参数梯度的 `zero_grad()`，且其间没有优化器步
（先对缩放后的损失反向传播，再 `model.zero_grad()` 并对原损失反向传播，以比较两者）：这时第二次
反向传播替换而不是累加第一次留下的梯度，保留计算图是安全的。如果 `torch.autograd.grad`
只是再次求取同一损失的 `.backward()` 刚算出的梯度（为了记录其范数），修复会改为从 `.grad`
读取（一份拷贝）：如果拥有该损失读取的每个参数的优化器正好在那次反向传播之前清空了 `.grad`
（`optimizer.zero_grad()`，中间没有别的反向传播），也没有钩子或检查器不跟踪的代码看到这些梯度，
这是安全的；否则不安全，因为 `.grad` 里可能还有那次反向传播之前已有的值。如果第二次反向传播之后
紧接着的代码读取 `.grad`，说明第二次反向传播是有意的，这时保留计算图排在删除第二次反向传播之前。
如果一个辅助函数在循环的每次迭代中对损失做反向传播并返回最后一个损失，调用方再把它交给另一个函数，
后者先清空 `.grad` 再对它做反向传播以读取梯度（EWC 由最后一个训练损失估计 Fisher 信息），那么 `.grad`
里仍然正是这个梯度：辅助函数的优化器在那次反向传播之前清空了它，之后也没有任何东西累加或清空它（优化器的
`step` 只读取它）。修复删除这次清空和第二次反向传播，之后的读取读到的就是第一次反向传播留下的梯度；
是否安全与改为从 `.grad` 读取的条件相同。

### 参考
- [torch.Tensor.backward](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
- [Autograd 机制](https://pytorch.org/docs/stable/notes/autograd.html)""",
    "EK002": """## pre-loop-graph-backward (EK002)

### 它检查什么
循环中的反向传播走到了在循环之前只构建一次的计算图节点：损失本身、来自模块或参数运算的中间结果
（也包括自定义 `autograd.Function` 的 `.apply`），或在 `__init__` 中只计算一次、却在每个训练步中
使用的参数变换（`self.w2 = self.w * 2`）。

### 为什么有问题？
第一次迭代的反向传播释放了这部分共享计算图所保存的张量；第二次迭代就会抛出
`RuntimeError: Trying to backward through the graph a second time`。加上 `retain_graph=True`
可以让错误消失，但训练用的一直是过时的前向传播结果，这正是知识库记录的第一个误区。

### 示例
```python
output = model(inputs)
for step in range(100):
    optimizer.zero_grad()
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
```

### 应改为
```python
for step in range(100):
    optimizer.zero_grad()
    output = model(inputs)
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
```

### 修复的安全性
如果循环已经用构建旧值的同一个表达式，把它重新算进一个没有任何地方读取的名字（攻击步骤中的
`logits = model(ids)`，旁边是攻击循环之前构建的干净 `outputs`），损失就改为读取这个名字：安全，
它不重新运行任何东西，也保留每一个梯度。
在循环内重新计算前向传播是安全的：每次迭代都会看到优化器刚更新过的参数，这正是训练循环的本意。
把 `__init__` 中的参数变换内联到使用处是不安全的（它把代码移到了别的方法里）。如果过时的值无法在
循环中重新计算，而损失又通过循环自己的前向传播学习，那么它们是循环只读取的目标（一次 rollout 的
旧对数概率、保存在 `__init__` 中的预测）：在保存处或循环之前把它们 detach 是不安全的，因为这会
截断第一次迭代经过它们传回的梯度；不过，若它们是某个模块的输出（所训练策略在 rollout 上的对数概率、
模型在锚点输入上的预测），而循环自己的前向传播又会再次到达它们读取的、由优化器拥有的每个参数，
优化器更新的仍是同一批张量，这时 detach 是安全的。
若这个值在外层循环的每次迭代里只算一次，而内层循环每次迭代轮流更新另一个优化器（互学习的两个同伴、
MADDPG 的各个智能体），就不提供在内层循环中重新计算的修复：那样后面的迭代会读到前面迭代刚更新过的
参数，变成程序本不想要的逐个更新；修复改为让每一轮的反向传播只到达该轮优化器更新的参数
（`loss.backward(inputs=[p for group in optimizers[i].param_groups for p in group["params"]])`），
把其他同伴的计算图留给它们自己的那一轮，效果与 detach 其他同伴的输出相同；这是不安全的，因为每一轮
到达哪些参数并未得到证明。若循环体只是对循环前构建的同一个损失，为每个优化器依次清零梯度、反向传播、
更新（`for opt in (enc_opt, dec_opt): ...`），修复改为先清零每个优化器的梯度、只反向传播一次，再让每个优化器
各自更新（不安全：它改写了循环）：每个优化器得到的仍是那一次前向传播上同一个损失的梯度。
循环只通过由某个值构建的东西读到它（循环之前用标签 `Y` 构建的加载器）时，在它被赋值的地方
detach（`Y = (X @ true_w).detach()`），安全性同上；在从不读取它的循环里重新计算它没有作用，不会提供。
若过时的值是前向钩子保存的模块输出（`self.features = output`），而这些钩子的句柄在循环之前已被移除、
循环却仍然运行该模块的前向传播，修复会在循环之前重新运行注册这些钩子的那一条语句
（`sfs = [SaveFeatures(cnn[i]) for i in block_ends]`）：若这条语句只构建普通类的对象、其构造函数只注册
只保存自己收到的值的钩子，而循环调用该模块的前向传播只是为了这些钩子（丢弃其返回值），这是安全的
（fix_safety 规则 16）；否则不安全，因为它会重新运行构造函数。
若过时的值是 `__init__` 用一串语句构建并保存在对象属性上的值（先 `self.reg_loss = torch.zeros(())`，
再由它调用的方法累加惩罚项），这串语句会变成类的一个方法，`__init__` 和训练循环在每次使用之前都调用它，
每一步的损失因此读到由当前参数算出的值：不安全，它为了对对象的作用而运行被检查代码中的方法。

### 参考
- [Autograd 机制](https://pytorch.org/docs/stable/notes/autograd.html)""",
    "EK003": """## carried-graph-backward (EK003)

### 它检查什么
反向传播走到了在循环的较早迭代（或训练步方法的较早一次调用）中产生、并被带入本次迭代的计算图
节点：未经 `.detach()` 就传回的 RNN 隐藏状态（包括元组 `(h, c)`）、累计量 `total = total + loss`、
保存在列表中的输出或损失（由循环或前向钩子保存）、在训练步之间保存在 `self` 上的状态。对象在其
方法的多次调用之间保存在自身上的状态，报告在该方法中的反向传播处。

### 为什么有问题？
较早一次迭代的反向传播已经释放了这部分计算图。本次迭代的反向传播又要经过它，于是抛出
`RuntimeError: Trying to backward through the graph a second time`。加上 `retain_graph=True`
可以运行，但计算图和它占用的内存会随每一步增长。

### 示例
```python
hidden = model.init_hidden(batch_size)
for inputs, targets in batches:
    output, hidden = model(inputs, hidden)
    loss = criterion(output, targets)
    loss.backward()
```

### 应改为
```python
hidden = model.init_hidden(batch_size)
for inputs, targets in batches:
    hidden = hidden.detach()
    output, hidden = model(inputs, hidden)
    loss = criterion(output, targets)
    loss.backward()
```

### 修复的安全性
在每次迭代（或训练步方法的每次调用）开头 detach 被带入的张量（或张量元组），当它由自身算出
（直接，或经由这一步由它算出的名字：`out, h = rnn(x, self.state)` 之后 `self.state = h`）时是
安全的：这就是截断的随时间反向传播，是标准写法；在对象自己的方法保存状态的地方保存 detach 后的值
（`self.center = ...`、记忆库的 `self.bank[idx] = z`）同样安全；但在一步之内又由自身更新的状态
（脉冲神经元的膜电位在一次前向的各个时间步上）除外，而由内层循环逐项写入、却不读取状态本身的保存
（反向传播之后逐项写回的回放记忆优先级）仍是训练步之间的截断。对象的方法自己算出并保存在对象上
的值（eval 模式下缓存的 Cholesky 因子），如果计算它的图里没有任何优化器拥有的参数、也没有别的
代码看它的梯度，就在保存的地方保存 detach 后的值：安全，值不变，训练的内容也不变。detach 被带入
的列表中的元素是不安全的：之后的反向传播不再能到达较早元素的计算图。
在反向传播之后追加、并被之后迭代读取的历史（用于损失加权的早先损失）改为保存 detach 后的副本：
如果每次迭代都是一个训练步，追加之后这一步不再有反向传播，历史进入循环时不带计算图，损失仍经由这一步自己的前向传播到达优化器拥有的
每个参数，也没有别的东西看到它所保存内容的梯度，这是安全的（副本的值相同，截断落在训练步之间）；
否则不安全。为某一步的损失填充却从不清空的列表（一个回合的对数概率、前向钩子收集的激活）改为在
每次迭代开头清空（不安全）。如果这样的列表随每一步的张量增长，而它的元素只作为一个和的项进入损失
（固定权重乘以 `sum(a.abs().mean() for a in records)`），就在每次迭代开头 detach 它的元素：安全，
较早的元素成为常数，这一步发送的梯度与清空列表时相同（堆叠后取平均，或由列表算出的数，会让较早的元素
影响这一步自己的元素：不提供）。
对象缓存的值只在旁边保存的键不为 `None` 时才被返回（`if self._key is not None and ...: return
self._cached`），且对键的每次读取都受同样的检查保护时，在每次迭代开头把 `None` 存入这个键，使每一步
都重新计算它（不安全：缓存不再起作用）。经验回放缓冲区（通过 `random.sample` 或下标读取）改为保存 detach
后的值：如果它保存的是模块的输出，而失败的反向传播在这里被截断后，仍能经由这一步自己的前向传播到达它之前
到达的、由优化器拥有的每个参数（DDPG 中 actor 的动作，actor 为自己的损失再运行一次），这是安全的；否则不安全。
对备忘缓存（在每次迭代开头清空的缓存、存回初始 `None` 的缓存值，
或设为 `None` 的键），如果向它存值的每个方法都只做计算（没有随机抽样，也没有为副作用而做的调用），存入的值
也从不读取缓存原来的内容，清空它就是安全的：下一次读取会按当前一步的参数重新算出缓存所代表的值，
也就是程序不用缓存时算出的值。
冻结的目标网络，其参数在 `no_grad` 之外被软更新原地写入（`p_target.copy_(tau * p + (1 - tau) *
p_target)`），会把这次更新的计算图带入之后每一次前向传播：改为在 `torch.no_grad()` 下更新。
如果这是训练步之间的截断，就是安全的：更新在优化器会 step 的循环中、位于这一步最后一次反向传播之后，
目标网络进入循环时不带这样的计算图，没有优化器拥有它的参数，损失仍经由这一步自己的前向传播到达
优化器拥有的每个参数，也没有别的东西看到这次更新的梯度（对目标网络而言就是截断的时间反向传播）；
否则不安全（在线网络不再经由目标值学习）。对象的方法由状态上一次的值、经一串只做前向计算的语句算出新值
（幂迭代的 `v = F.normalize(w.t() @ self.u)` 接着 `self.u = F.normalize(w @ v)`）时，
这串语句改为在 `torch.no_grad()` 下运行，状态就不再把计算图从一步带到下一步（不安全：
这一步之后读取的这些值（`sigma = self.u @ w @ v`）对梯度而言成了常数）。
包住整个循环的 `parametrize.cached()` 上下文会保留第一次迭代算出的张量：
改为在每次迭代中、围绕循环体进入这个上下文（安全：每次迭代由当前参数算一次张量，其他代码不会再运行）。

### 参考
- [pytorch/examples word_language_model `repackage_hidden`](https://github.com/pytorch/examples/blob/main/word_language_model/main.py)
- [Autograd 机制](https://pytorch.org/docs/stable/notes/autograd.html)""",
    "EK004": """## shared-graph-backward (EK004)

### 它检查什么
两个损失共享部分计算图（不只是参数）时，标记其中的第二次反向传播：共享主干上的多任务或辅助损失，
共享主体上的 actor 与 critic 损失，或判别器损失使用了生成器的输出却没有 `.detach()`、随后生成器
一步又对它反向传播的 GAN。

### 为什么有问题？
第一次反向传播释放了共享部分保存的张量；第二次就会抛出
`RuntimeError: Trying to backward through the graph a second time`。

### 示例
```python
features = encoder(x)
loss_cls = criterion(classifier(features), labels)
loss_rec = mse(decoder(features), x)
loss_cls.backward()
loss_rec.backward()
```

### 应改为
```python
features = encoder(x)
loss_cls = criterion(classifier(features), labels)
loss_rec = mse(decoder(features), x)
(loss_cls + loss_rec).backward()
```

### 修复的安全性
把损失（或被反向传播的量，例如 `scaler.scale(loss)`、`alpha * ce`）相加后只做一次反向传播，在两者各自经由自己
的部分学习（主干上的两个头）、都没有自己的部分、或没有自己部分的那个只经由另一个自己部分的输入学习
（VAE 的 KL 项、解码器读取的编码上的惩罚）时是安全的：梯度与两次反向传播相同。若其中一个只经由另一个
与自己部分的输出相组合的值学习（critic 的价值给 actor 的对数概率加权），那个值可能是程序本想
detach 的基线：相加是不安全的。在第一个损失中 detach 共享张量，在 GAN 的判别器一步中是安全的
（两次反向传播之间有一次优化器步），在其他情况下不安全，因为它在共享部分截断了第一个损失的梯度。在第一次反向传播上
使用 `retain_graph=True` 只在两次反向传播之间没有优化器步、或其间的每一步只改变第二个损失
的计算图不读取的参数时才提供（actor 的优化器在 critic 的损失之前更新，而 critic 的计算图从不读取 actor；
依据构造每个模块的调用判断，从不依据名字）：否则那一步会修改第二次反向传播需要的张量。它在两者是不同的损失、
相加是安全的、第一次是 `.backward()`、且检查器不跟踪的代码没有拿到第二个计算图读取的东西时是安全的：
保留的计算图发送的正是程序所写的梯度（TD3 的 actor 损失先于 critic 的损失，量化器的码本损失先于主损失）；
其他情况下不安全。若第二个损失通过
一个在第一次反向传播之前算出的值读取共享部分（`advantage = reward - value`，先为 critic 反向传播，
再给策略的替代目标加权），就在第一次反向传播之后第二个损失读取它的地方 detach 这个值。在第二个损失中
detach 也是安全的，如果它截断的梯度从不被应用：第二次反向传播的每次运行之后，每个改变被截断部分
所读取参数（critic 的参数）的优化器步之前，都有一个优化器的 `zero_grad()` 清除了它（critic 在下一步
之前自己的清零），也没有别的东西读取这个梯度。若程序自己已在
第一次反向传播之后用构建共享值的同一个表达式把它重新算出、赋给一个从未被读取的名字（在 critic 循环的
`fake_imgs` 旁边写了 `gen_imgs = generator(torch.randn(n, d))`），第二个损失就改为读取这个名字：这是安全的，
既不重新运行任何代码，也保留了所有梯度；它排在最前。

### 参考
- [DCGAN 示例，`fake.detach()`](https://github.com/pytorch/examples/blob/main/dcgan/main.py)
- [Autograd 机制](https://pytorch.org/docs/stable/notes/autograd.html)""",
    "EK005": """## retain-graph-in-loop (EK005)

### 它检查什么
循环的每次迭代都在反向传播上使用 `retain_graph=True`，而计算图每次迭代都会重建，并且同一次迭代中
之后没有别的反向传播再经过它。

### 为什么有问题？
这是知识库为“第二次反向传播”错误记录的第一个误区：它让错误消失，却让每次迭代保存的张量在计算图
仍被引用时一直存活；如果有张量在迭代之间传递，计算图和内存会不断增长，直到运行因内存不足而终止。

### 示例
```python
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward(retain_graph=True)
    optimizer.step()
```

### 应改为
```python
for inputs, targets in loader:
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
```

### 修复的安全性
当之后没有反向传播会到达被保留的计算图时，删除 `retain_graph=True` 是安全的。如果之后的迭代会
到达它（计算图跨迭代传递），只删除它就会报错；此时修复仅供参考：先 detach 被传递的状态。

### 参考
- [torch.Tensor.backward，`retain_graph`](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)""",
    "EK006": """## saved-tensor-after-free (EK006)

### 它检查什么
在一次没有 `retain_graph=True` 的反向传播释放了计算图节点之后，读取该节点为反向传播保存的张量——
`t.grad_fn._saved_self`、`t.grad_fn._saved_result`、`t.grad_fn.saved_tensors`。

### 为什么有问题？
反向传播会释放计算图保存的张量。之后再读取它们，会抛出与第二次反向传播相同的
`RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors
after they have already been freed)`。检查计算图的代码（调试辅助函数、自定义 `Function` 的测试）
在训练步的反向传播之后就会遇到它。

### 示例
```python
y = x * w
loss = y.sum()
loss.backward()
print(y.grad_fn._saved_self)
```

### 应改为
```python
y = x * w
saved = y.grad_fn._saved_self  # 在反向传播释放它之前读取
loss = y.sum()
loss.backward()
```

### 修复的安全性
给释放该节点的反向传播加上 `retain_graph=True` 会让保存的张量继续存活；它算出的梯度不变，但计算图
占用的内存要等到计算图被丢弃才释放，之后再经过它的反向传播也不再报错：不安全（安全的修复只切断或
重建计算图，见 `fix_safety.py`）。在反向传播之前读取保存的值是更好的改法，留给作者来做。

### 参考
- [Autograd 机制：保存的张量](https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors)""",
}
"""Each rule's documentation in Chinese, under the same headings as its module docstring."""

MESSAGES = Catalog.of(
    [
        # double-backward
        (
            "`{tensor}` is backwarded a second time: the backward at line {line} already freed its graph",
            "`{tensor}` 被第二次反向传播：第 {line} 行的反向传播已经释放了它的计算图",
        ),
        ("`{tensor}`'s graph is freed here", "`{tensor}` 的计算图在这里被释放"),
        # pre-loop-graph-backward
        (
            "`{tensor}` reaches a graph built once, before the loop at line {line}: the first iteration's "
            "backward freed it, so the next one raises",
            "`{tensor}` 走到了第 {line} 行在循环之前只构建一次的计算图：第一次迭代的反向传播已经释放了它，"
            "所以下一次迭代会报错",
        ),
        (
            "`{tensor}` reaches a graph built once, before the loop: the first iteration's backward freed "
            "it, so the next one raises",
            "`{tensor}` 走到了在循环之前只构建一次的计算图："
            "第一次迭代的反向传播已经释放了它，所以下一次迭代会报错",
        ),
        ("the graph is freed here on the first iteration", "第一次迭代时计算图在这里被释放"),
        ("built here, once, outside the loop", "在这里、循环之外只构建了一次"),
        ("{verb} `{names}` inside the loop, on every iteration", "在循环内每次迭代都{verb} `{names}`"),
        (
            "{verb} `{names}` inside `{closure}()`, on every call",
            "在 `{closure}()` 内每次调用时都{verb} `{names}`",
        ),
        (
            "Reuse the graph of the gradient at line {line} on every product: `retain_graph=True`",
            "每次乘积都复用第 {line} 行梯度的计算图：`retain_graph=True`",
        ),
        ("Compute", "计算"),
        ("Recompute", "重新计算"),
        (
            "Compute `{names}` where it is used, on every call",
            "在使用处、每次调用时计算 `{names}`",
        ),
        (
            "Detach {shown}, built once and only read by the loop (it learns through its own forward pass)",
            "detach {shown}：它只构建一次、循环只读取它（损失通过循环自己的前向传播学习）",
        ),
        # carried-graph-backward
        (
            "`{tensor}` reaches the graph of an earlier iteration through the parameters of `{module}`, "
            "which the update in place at line {line} ties to a graph; {what}'s backward already freed it",
            "`{tensor}` 经由 `{module}` 的参数走到了更早一次迭代的计算图：第 {line} 行的原地更新把这些参数"
            "接到了计算图上；{what}的反向传播已经释放了它",
        ),
        (
            "`{module}`'s parameters are updated here, with grad on",
            "`{module}` 的参数在这里被更新，且梯度是开启的",
        ),
        (
            "Update `{module}`'s parameters under `torch.no_grad()`",
            "在 `torch.no_grad()` 下更新 `{module}` 的参数",
        ),
        (
            "Compute `self.{attr}` from its previous value under `torch.no_grad()`",
            "在 `torch.no_grad()` 下由上一次的值计算 `self.{attr}`",
        ),
        (
            "`{tensor}` reaches the graph of {what} through the `{name}` that `parametrize.cached()` "
            "(line {line}) computed once and keeps for every iteration; {what}'s backward already freed it",
            "`{tensor}` 经由 `parametrize.cached()`（第 {line} 行）只计算一次、并在每次迭代中沿用的 "
            "`{name}` 走到了{what}的计算图；{what}的反向传播已经释放了它",
        ),
        (
            "`{tensor}` reaches the graph of {what} through {shown}; {what}'s backward already freed it",
            "`{tensor}` 经由 {shown} 走到了{what}的计算图；{what}的反向传播已经释放了它",
        ),
        ("the graph of {what} is freed here", "{what}的计算图在这里被释放"),
        (
            "`{tensor}` reaches a graph made inside the loop at line {line}, which has ended; "
            "a backward in that loop already freed it",
            "`{tensor}` 走到了第 {line} 行的循环（已经结束）中构建的计算图；"
            "那个循环中的一次反向传播已经释放了它",
        ),
        ("the graph is freed here, inside that loop", "计算图在这里、在那个循环中被释放"),
        ("the cached context spans the loop", "缓存上下文包住了整个循环"),
        (
            "Enter `parametrize.cached()` on every iteration, around the loop's body",
            "在每次迭代中、围绕循环体进入 `parametrize.cached()`",
        ),
        ("the previous call", "上一次调用"),
        ("the previous iteration", "上一次迭代"),
        ("a value", "一个值"),
        (
            "Store {shown} detached where it is updated, after each step",
            "每一步之后，在更新 {shown} 的地方保存 detach 后的值",
        ),
        (
            "Store {shown} detached where it is stored (no optimizer trains what it is computed from)",
            "在保存 {shown} 的地方保存 detach 后的值（计算它所用的参数没有任何优化器在训练）",
        ),
        ("Detach the previous step's {shown} where it is read", "在读取上一步 {shown} 的地方对它 detach"),
        ("Keep detached copies in {shown}", "在 {shown} 中保存 detach 后的副本"),
        ("Store detached values in the replay buffer {shown}", "在回放缓冲区 {shown} 中保存 detach 后的值"),
        (
            "Keep what computes `{value}` in the replay memory and compute it again where it is read",
            "在回放缓冲区中保存计算 `{value}` 的函数，并在读取处重新计算它",
        ),
        (
            "Empty the cache {shown} at the start of each iteration: store `None` into its key {keys}",
            "在每次迭代开头清空缓存 {shown}：把 `None` 存入它的键 {keys}",
        ),
        ("Empty {shown} at the start of each {where}", "在每次{where}开头清空 {shown}"),
        ("Re-run {shown} at the start of each iteration", "在每次迭代开头重新运行 {shown}"),
        ("Empty the cache {shown} at the start of each iteration", "在每次迭代开头清空缓存 {shown}"),
        (
            "Build {shown} with `cache_size=0`: no step reuses an earlier one's inversion",
            "以 `cache_size=0` 构造 {shown}：任何一步都不再复用先前一步保存的逆变换结果",
        ),
        (
            "Detach the items of {shown} at the start of each {where}",
            "在每次{where}开头 detach {shown} 的元素",
        ),
        ("Detach {shown} at the start of each {where}", "在每次{where}开头 detach {shown}"),
        ("Detach {shown} after each backward", "在每次反向传播之后 detach {shown}"),
        (
            "Reset `.{attr}` of every `{cls}` to `{start}` at the start of each iteration",
            "在每次迭代开头把每个 `{cls}` 的 `.{attr}` 重置为 `{start}`",
        ),
        ("Reset {shown} at the start of each iteration", "在每次迭代开头重置 {shown}"),
        (
            "Sum `{loss}` over the loop's iterations and backward once after it",
            "把 `{loss}` 在循环的各次迭代上累加，循环结束后只反向传播一次",
        ),
        (
            "Use `parametrizations.weight_norm`, which computes the weight at every read",
            "改用 `parametrizations.weight_norm`，它在每次读取时计算权重",
        ),
        (
            "Compute `{name}` on every iteration, not only when `{test}`",
            "在每次迭代都计算 `{name}`，而不是只在 `{test}` 时计算",
        ),
        ("call", "调用"),
        ("iteration", "迭代"),
        # shared-graph-backward
        (
            "`{tensor}` shares a graph through `{shared}` with `{other}`, whose backward at line {line} "
            "already freed it",
            "`{tensor}` 经由 `{shared}` 与 `{other}` 共享计算图，"
            "而 `{other}` 在第 {line} 行的反向传播已经释放了它",
        ),
        (
            "`{tensor}` shares a graph with `{other}`, whose backward at line {line} already freed it",
            "`{tensor}` 与 `{other}` 共享计算图，而 `{other}` 在第 {line} 行的反向传播已经释放了它",
        ),
        ("`{other}`'s backward frees the shared graph here", "`{other}` 的反向传播在这里释放了共享的计算图"),
        ("the shared part of the graph is built here", "计算图的共享部分在这里构建"),
        (
            "`parametrize.cached()` gives back here the tensor the first loss was built from",
            "`parametrize.cached()` 在这里返回第一个损失所用的那个张量",
        ),
        ("Sum the losses and backward once: `{total}`", "把损失相加后只反向传播一次：`{total}`"),
        ("Sum the losses and backward once", "把损失相加后只反向传播一次"),
        (
            "Sum the losses, backward once, then step `{first}` and `{second}`",
            "把损失相加后只反向传播一次，再分别调用 `{first}.step()` 和 `{second}.step()`",
        ),
        (
            "Detach `{name}` in the first loss (`{code}`)",
            "在第一个损失中 detach `{name}`（`{code}`）",
        ),
        (
            "Use `{fresh}` in the second loss: it recomputes `{name}` and is read nowhere else",
            "在第二个损失中使用 `{fresh}`：它重新计算了 `{name}`，且别处从未读取它",
        ),
        (
            "Detach `{name}` where the second loss uses it (`{code}`)",
            "在第二个损失使用 `{name}` 的地方 detach 它（`{code}`）",
        ),
        (
            "Compute {names} again from detached inputs in the second loss and detach {others} there",
            "在第二个损失中由 detach 后的输入重新计算 {names}，并在那里 detach {others}",
        ),
        (
            "Compute {names} again from detached inputs in the second loss",
            "在第二个损失中由 detach 后的输入重新计算 {names}",
        ),
        # retain-graph-in-loop
        (
            "`retain_graph=True` on `{tensor}`'s backward on every iteration while the graph is rebuilt "
            "every iteration: its saved tensors stay alive",
            "`{tensor}` 的反向传播每次迭代都使用 `retain_graph=True`，而计算图每次迭代都会重建："
            "它保存的张量会一直存活",
        ),
        (
            "Remove `retain_graph=True`: nothing backwards through this graph again",
            "删除 `retain_graph=True`：之后没有反向传播再经过这个计算图",
        ),
        (
            "`retain_graph=True` on `{tensor}`'s backward on every iteration, and a later iteration "
            "backwards through the graph it keeps: that graph and its saved tensors are carried from "
            "one iteration to the next",
            "`{tensor}` 的反向传播每次迭代都使用 `retain_graph=True`，而之后的迭代会再次反向传播经过"
            "它保留的计算图：这个计算图及其保存的张量被从一次迭代带到下一次迭代",
        ),
        (
            "Remove `retain_graph=True` once nothing carries this graph into the next iteration",
            "在没有任何东西把这个计算图带入下一次迭代之后，删除 `retain_graph=True`",
        ),
        # saved-tensor-after-free
        (
            "`{read}` reads what `{tensor}`'s graph saved, which the backward at line {line} already freed",
            "`{read}` 读取了 `{tensor}` 的计算图保存的张量，而第 {line} 行的反向传播已经释放了它",
        ),
        ("the backward that freed it", "释放它的反向传播"),
        (
            "Keep the saved tensors: `retain_graph=True` at line {line}",
            "保留保存的张量：在第 {line} 行使用 `retain_graph=True`",
        ),
        # fixes several rules share
        ("Recompute `{names}` before the second backward", "在第二次反向传播之前重新计算 `{names}`"),
        (
            "Backward `{loss}` once, then step each optimizer of the loop",
            "只对 `{loss}` 反向传播一次，再让循环中的每个优化器各自更新",
        ),
        ("Remove the second backward (one backward per step)", "删除第二次反向传播（每步只反向传播一次）"),
        (
            "Build `{state}` again before each use in the loop, as `__init__` built it",
            "在循环中每次使用 `{state}` 之前，按 `__init__` 构建它的方式重新构建它",
        ),
        (
            "Register the forward hooks of line {line} again before the loop",
            "在循环之前重新注册第 {line} 行的前向钩子",
        ),
        (
            "Backward `{loss}` only into the parameters `{optimizer}` steps",
            "只对 `{optimizer}` 更新的参数反向传播 `{loss}`",
        ),
        (
            "Start `{name}` again from `{start}` before it is summed again",
            "在再次累加之前把 `{name}` 重新设为 `{start}`",
        ),
        (
            "Keep the graph for the second pass: `retain_graph=True` at line {line}",
            "为第二次反向传播保留计算图：在第 {line} 行使用 `retain_graph=True`",
        ),
        (
            "Make the gradient at line {line} differentiable: `create_graph=True`",
            "让第 {line} 行的梯度可微：`create_graph=True`",
        ),
        (
            "Read the gradient the backward at line {line} left in `.grad`",
            "读取第 {line} 行的反向传播留在 `.grad` 中的梯度",
        ),
        (
            "Remove `{clear}` and the second backward: `.grad` holds what line {line} left",
            "删除 `{clear}` 和第二次反向传播：`.grad` 里仍是第 {line} 行留下的梯度",
        ),
        # the checker
        ("the call that reaches this backward the second time", "第二次到达这次反向传播的调用"),
        (
            "the backward at {raising} goes through a graph that the backward at {freeing} already freed",
            "{raising} 处的反向传播经过的计算图，已被 {freeing} 处的反向传播释放",
        ),
        (
            "the backward at {raising} goes through a graph that an earlier run of it already freed",
            "{raising} 处的反向传播经过的计算图，已被它自己的上一次运行释放",
        ),
        ("this backward raises: its graph was freed", "这次反向传播会抛出错误：它的计算图已被释放"),
        ("the backward that freed the graph", "释放了计算图的反向传播"),
    ]
)
"""What the rules' findings say (messages, related places, fix titles), in Chinese."""
