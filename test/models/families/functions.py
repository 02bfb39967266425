# functions.py: fixtures for modules written as ONNX local functions (the
# `functions` and `function_weights` options, docs/functions.md).
#
# They keep each node's nn_module_stack (ModuleFixture: the converter finds the module
# instances in it), unlike the other op-coverage fixtures, and each writes its own
# conversion options (NAME.io/options.yaml), so test/run-ort.sh checks the outlined
# model against torch with the default patterns and with `patterns: none`.


def _keep_modules(fx, options):
    """fx saved with nn_module_stack kept (the rest of the debugging metadata dropped)
    and converted with options."""
    fx.slim_keep = ("nn_module_stack",)
    fx.options = options
    fx.deflate_min = 64          # model.json, mostly module paths, deflates 8 to 1

    return fx


def _tiny_causal_lm(config_cls, model_cls, layers=2, **kw):
    transformers, cfg = _hf(config_cls, "eager", vocab_size=16, hidden_size=16,
                            intermediate_size=32, num_hidden_layers=layers,
                            max_position_embeddings=32, tie_word_embeddings=False,
                            bos_token_id=1, eos_token_id=2, pad_token_id=0,
                            initializer_range=0.1, use_cache=False, **kw)
    ids = torch.randint(0, 16, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    ids2 = torch.randint(0, 16, (2, 8))
    return _hf_fixture(transformers, getattr(transformers, model_cls)(cfg),
                       ("input_ids", "attention_mask"), (ids, mask), "eager",
                       extra_cases=[("random ids", (ids2, mask))],
                       use_cache=False, return_dict=False)


def fx_fn_llama():
    # two alike LlamaDecoderLayers: one function, weights passed as inputs
    return _keep_modules(_tiny_causal_lm("LlamaConfig", "LlamaForCausalLM",
                                         num_attention_heads=2, num_key_value_heads=1),
                         "functions: [LlamaDecoderLayer]\n")


def fx_fn_llama_dyn():
    # dynamic batch and sequence: the function's value_info keeps the dim names
    f = _keep_modules(_tiny_causal_lm("LlamaConfig", "LlamaForCausalLM",
                                      num_attention_heads=2, num_key_value_heads=1),
                      "functions: [LlamaDecoderLayer]\n")
    b, s = Dim("batch", min=1, max=8), Dim("seq", min=2, max=32)
    f.dynamic_shapes = (({0: b, 1: s}, {0: b, 1: s}),)    # _HFWrapper.forward(*args)
    f.cases = [("batch=3 seq=5", (torch.randint(0, 16, (3, 5)), torch.ones(3, 5, dtype=torch.int64)))]
    return f


def fx_fn_llama_embedded():
    # the same model, one function per layer holding its weights as constants
    return _keep_modules(_tiny_causal_lm("LlamaConfig", "LlamaForCausalLM",
                                         num_attention_heads=2, num_key_value_heads=1),
                         "functions: [transformers.models.llama.modeling_llama.LlamaDecoderLayer]\n"
                         "function_weights: embedded\n")


def fx_fn_qwen2():
    # Qwen2 (q/k/v biases, GQA); the decoder layers and, nested in them, their MLPs
    return _keep_modules(_tiny_causal_lm("Qwen2Config", "Qwen2ForCausalLM",
                                         num_attention_heads=4, num_key_value_heads=2),
                         "functions: [Qwen2DecoderLayer, Qwen2MLP]\n")


def _fn_resnet():
    """torchvision's ResNet with small widths and two BasicBlocks per stage: layer1
    4 -> 4 (no downsample, twice), layer2 4 -> 8 stride 2 (with a downsample) then 8 -> 8
    (without)."""
    resnet = _tvm("resnet")

    class TinyResNet(resnet.ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes = 4
            self.dilation = 1
            self.groups = 1
            self.base_width = 64
            self.conv1 = nn.Conv2d(3, 4, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(resnet.BasicBlock, 4, 2)
            self.layer2 = self._make_layer(resnet.BasicBlock, 8, 2, stride=2)
            self.layer3 = nn.Identity()
            self.layer4 = nn.Identity()
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(self.inplanes, 10)

    return SlimFixture(liven(TinyResNet()).eval(), (r(2, 3, 16, 16),),
                       cases=[("another batch", (r(2, 3, 16, 16),))])


def fx_fn_resnet():
    # BasicBlock: one function for the three blocks without downsample, a variant
    # (BasicBlock.1) for the one with it
    return _keep_modules(_fn_resnet(), "functions: [BasicBlock]\n")


def fx_fn_resnet_nested():
    # Conv2d functions inside BasicBlock functions, and the stem's Conv2d at the top;
    # kernel, stride and padding differ between the convs: function attributes
    return _keep_modules(_fn_resnet(), "functions: [BasicBlock, torch.nn.modules.conv.Conv2d]\n")


family(["fn_llama", "fn_llama_dyn", "fn_llama_embedded", "fn_qwen2"], versions=("2.14",), decomp=False)
family(["fn_resnet", "fn_resnet_nested"], versions=("2.14", "2.6"), decomp=True)
